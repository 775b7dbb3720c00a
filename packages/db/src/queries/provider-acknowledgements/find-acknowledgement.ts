/** A send's recorded acknowledgement (its provider message id and answer), or undefined: one primary-key probe. */
import type { Db } from "../executor.ts";

export const findAcknowledgement = (db: Db, companyId: number, idempotencyKey: string) =>
  db
    .selectFrom("provider_acknowledgements")
    .select(["provider_message_id", "response", "acknowledged_at"])
    .where("company_id", "=", companyId)
    .where("idempotency_key", "=", idempotencyKey)
    .executeTakeFirst();
