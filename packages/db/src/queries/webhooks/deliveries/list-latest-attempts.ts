/** The latest `perDelivery` attempts of each of a company's deliveries, by delivery then newest first. */
import { sql } from "kysely";
import type { Db } from "../../executor.ts";

export interface AttemptRow {
  readonly delivery_id: number;
  readonly attempted_at: Date;
  readonly status_code: number | null;
  readonly duration_ms: number;
  readonly error: string | null;
  readonly response_body_excerpt: string | null;
}

export const listLatestAttempts = async (
  db: Db,
  companyId: number,
  deliveryIds: ReadonlyArray<number>,
  perDelivery: number,
): Promise<AttemptRow[]> =>
  deliveryIds.length === 0
    ? []
    : (
        await sql<AttemptRow>`
          select delivery_id, attempted_at, status_code, duration_ms, error, response_body_excerpt
          from (
            select a.*, row_number() over (partition by a.delivery_id order by a.id desc) as position
            from webhook_delivery_attempts a
            where a.company_id = ${companyId} and a.delivery_id = any (${deliveryIds}::bigint[])
          ) latest
          where position <= ${perDelivery}
          order by delivery_id, position`.execute(db)
      ).rows;
