/**
 * A company's webhook event's internal id by its public id, read `for key
 * share`, as a delivery's reference check would lock it: a retention purge
 * deleting it meanwhile makes this undefined (the read waits for the purge's
 * commit), never a failed insert, and a purge that comes second skips it
 * (docs/decisions/0021).
 */
import type { DbTransaction } from "../../executor.ts";

export const shareEvent = async (
  trx: DbTransaction,
  companyId: number,
  publicId: string,
): Promise<number | undefined> =>
  (
    await trx
      .selectFrom("webhook_events")
      .select("id")
      .where("company_id", "=", companyId)
      .where("public_id", "=", publicId)
      .forKeyShare()
      .executeTakeFirst()
  )?.id;
