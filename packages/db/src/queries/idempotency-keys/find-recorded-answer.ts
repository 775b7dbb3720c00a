import type { Kysely } from "kysely";
import type { Database } from "../../schema.ts";
import type { RecordedAnswer } from "./keyed-request.ts";

/** The answer recorded under `key` that has not expired at `now`, if any. */
export const findRecordedAnswer = async (
  db: Kysely<Database>,
  companyId: number,
  key: string,
  now: Date,
): Promise<RecordedAnswer | undefined> => {
  const row = await db
    .selectFrom("idempotency_keys")
    .select(["operation", "request_sha256", "response_status", "response_body", "response_headers"])
    .where("company_id", "=", companyId)
    .where("idempotency_key", "=", key)
    .where("expires_at", ">", now)
    .executeTakeFirst();
  if (row === undefined || row.response_status === null || row.response_body === null) return undefined;
  return {
    operation: row.operation,
    requestSha256: row.request_sha256,
    status: row.response_status,
    body: row.response_body,
    headers: row.response_headers ?? {},
  };
};
