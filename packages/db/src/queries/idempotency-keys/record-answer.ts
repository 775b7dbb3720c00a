import type { Kysely } from "kysely";
import type { Database } from "../../schema.ts";

/** Records the answer of the request that claimed `key` (in the claiming transaction). */
export const recordAnswer = async (
  trx: Kysely<Database>,
  companyId: number,
  key: string,
  answer: { readonly status: number; readonly body: string; readonly headers: Readonly<Record<string, string>> },
): Promise<void> => {
  await trx
    .updateTable("idempotency_keys")
    .set({
      response_status: answer.status,
      response_body: answer.body,
      response_headers: JSON.stringify(answer.headers),
    })
    .where("company_id", "=", companyId)
    .where("idempotency_key", "=", key)
    .execute();
};
