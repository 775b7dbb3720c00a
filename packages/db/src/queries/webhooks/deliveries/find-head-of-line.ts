/** The oldest pending delivery of an endpoint before the given event, by event time then event id, or undefined. */
import { sql } from "kysely";
import type { Db } from "../../executor.ts";

export const findHeadOfLine = (
  db: Db,
  delivery: {
    readonly companyId: number;
    readonly endpointId: number;
    readonly eventOccurredAt: Date;
    readonly eventId: number;
  },
) =>
  db
    .selectFrom("webhook_deliveries")
    .select(["id", "next_attempt_at"])
    .where("company_id", "=", delivery.companyId)
    .where("endpoint_id", "=", delivery.endpointId)
    .where("status", "=", "pending")
    .where(
      sql<boolean>`(event_occurred_at, event_id) < (${delivery.eventOccurredAt}::timestamptz, ${delivery.eventId}::bigint)`,
    )
    .orderBy("event_occurred_at")
    .orderBy("event_id")
    .limit(1)
    .executeTakeFirst();
