/**
 * A company's endpoint's sealed current secret, its row locked `for update`
 * until the transaction ends (a rotation reads it to keep it as the
 * previous one); undefined when there is no such endpoint.
 */
import type { DbTransaction } from "../../executor.ts";

export const lockEndpointSecret = async (
  trx: DbTransaction,
  companyId: number,
  endpointId: number,
): Promise<Buffer | undefined> =>
  (
    await trx
      .selectFrom("webhook_endpoints")
      .select("secret_ciphertext")
      .where("company_id", "=", companyId)
      .where("id", "=", endpointId)
      .forUpdate()
      .executeTakeFirst()
  )?.secret_ciphertext;
