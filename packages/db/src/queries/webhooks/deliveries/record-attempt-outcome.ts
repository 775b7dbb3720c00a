/**
 * Counts an attempt on a company's delivery and, if it is still pending,
 * settles it to `status` (`pending` again with `nextAttemptAt`, or
 * `succeeded`/`failed`). Only while `retry_index` is the one the attempt
 * read: a replay or a concurrent settlement meanwhile wins. Returns the
 * delivery's status after the update, or undefined when it did not match.
 */
import { sql } from "kysely";
import type { Db } from "../../executor.ts";

export const recordAttemptOutcome = async (
  db: Db,
  outcome: {
    readonly companyId: number;
    readonly deliveryId: number;
    readonly retryIndex: number;
    readonly statusCode: number | null;
    readonly status: "pending" | "succeeded" | "failed";
    readonly nextAttemptAt: Date | null;
    readonly now: Date;
  },
): Promise<string | undefined> => {
  const { companyId, deliveryId, status, nextAttemptAt, now } = outcome;
  const updated = await sql<{ status: string }>`
    update webhook_deliveries set
      attempt_count = attempt_count + 1,
      last_status_code = ${outcome.statusCode}::int,
      updated_at = ${now}::timestamptz,
      status = case when status = 'pending' then ${status}::text else status end,
      retry_index = case when status = 'pending' and ${status}::text = 'pending' then retry_index + 1 else retry_index end,
      next_attempt_at = case when status = 'pending' then ${nextAttemptAt}::timestamptz else next_attempt_at end,
      completed_at = case when status = 'pending' and ${status}::text <> 'pending' then ${now}::timestamptz else completed_at end
    where company_id = ${companyId} and id = ${deliveryId} and retry_index = ${outcome.retryIndex}
    returning status`.execute(db);
  return updated.rows[0]?.status;
};
