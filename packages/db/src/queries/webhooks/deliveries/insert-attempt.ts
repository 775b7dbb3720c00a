/** Records one attempt of a company's delivery (nothing when the delivery is gone). */
import { sql } from "kysely";
import type { Db } from "../../executor.ts";

export interface AttemptResult {
  readonly statusCode: number | null;
  readonly durationMs: number;
  readonly error: string | null;
  readonly bodyExcerpt: string | null;
}

export const insertAttempt = async (
  db: Db,
  attempt: {
    readonly companyId: number;
    readonly deliveryId: number;
    readonly now: Date;
    readonly result: AttemptResult;
  },
): Promise<void> => {
  const { companyId, deliveryId, now, result } = attempt;
  await sql`
    insert into webhook_delivery_attempts (company_id, delivery_id, attempted_at, status_code, duration_ms, error, response_body_excerpt)
    select company_id, id, ${now}::timestamptz, ${result.statusCode}::int, ${result.durationMs}::int, ${result.error}::text, ${result.bodyExcerpt}::text
    from webhook_deliveries where company_id = ${companyId} and id = ${deliveryId}`.execute(db);
};
