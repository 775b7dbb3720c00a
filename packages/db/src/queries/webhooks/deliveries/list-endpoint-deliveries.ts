/**
 * A page of a company's endpoint's deliveries (optionally of one status),
 * newest first, each with its event, and their total, in one statement.
 */
import type { Db } from "../../executor.ts";
import type { Keyset } from "../../keyset.ts";
import { pageOfRows, type PageRequest } from "../../page-of-rows.ts";

/** Newest first: `(company_id, endpoint_id, id)` serves a page after a key. */
export const deliveryOrder: Keyset = [{ column: "d.id", direction: "desc", kind: "integer" }];

export const listEndpointDeliveries = (
  db: Db,
  filter: {
    readonly companyId: number;
    readonly endpointId: number;
    readonly status?: "pending" | "succeeded" | "failed" | "disabled" | undefined;
  },
  page: PageRequest,
) => {
  let deliveries = db
    .selectFrom("webhook_deliveries as d")
    .where("d.company_id", "=", filter.companyId)
    .where("d.endpoint_id", "=", filter.endpointId);
  if (filter.status !== undefined) deliveries = deliveries.where("d.status", "=", filter.status);
  return pageOfRows(
    db,
    deliveries,
    (filtered) =>
      filtered
        .innerJoin("webhook_events as e", (join) =>
          join.onRef("e.company_id", "=", "d.company_id").onRef("e.id", "=", "d.event_id"),
        )
        .select([
          "d.id",
          "e.public_id",
          "e.type",
          "e.occurred_at",
          "d.status",
          "d.attempt_count",
          "d.next_attempt_at",
          "d.created_at",
          "d.updated_at",
          "d.completed_at",
        ]),
    deliveryOrder,
    page,
  );
};
