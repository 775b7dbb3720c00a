/** One delivery of a company with its endpoint (sealed secrets included) and its event's payload: what an attempt sends. */
import type { Db } from "../../executor.ts";

export const loadDelivery = (db: Db, companyId: number, deliveryId: number) =>
  db
    .selectFrom("webhook_deliveries as d")
    .innerJoin("webhook_endpoints as e", (join) =>
      join.onRef("e.company_id", "=", "d.company_id").onRef("e.id", "=", "d.endpoint_id"),
    )
    .innerJoin("webhook_events as ev", (join) =>
      join.onRef("ev.company_id", "=", "d.company_id").onRef("ev.id", "=", "d.event_id"),
    )
    .select([
      "d.id",
      "d.status",
      "d.retry_index",
      "d.attempt_count",
      "d.event_id",
      "d.event_occurred_at",
      "e.id as endpoint_id",
      "e.url",
      "e.enabled",
      "e.ordered",
      "e.secret_ciphertext",
      "e.previous_secret_ciphertext",
      "e.previous_secret_expires_at",
      "ev.public_id",
      "ev.type",
      "ev.payload",
    ])
    .where("d.company_id", "=", companyId)
    .where("d.id", "=", deliveryId)
    .executeTakeFirst();

export type LoadedDelivery = NonNullable<Awaited<ReturnType<typeof loadDelivery>>>;
