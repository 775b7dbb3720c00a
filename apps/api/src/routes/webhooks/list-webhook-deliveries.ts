/**
 * GET /webhooks/endpoints/{id}/deliveries: the endpoint's deliveries, newest
 * first, each with its event and its latest attempts: two statements whatever
 * the page's size, the page with its total, then the attempts.
 */
import { type Endpoints, MAX_LISTED_ATTEMPTS, type WebhookEventType } from "@dc/contract";
import { sql } from "kysely";
import type { HandlerOf } from "../../http/handler.ts";
import { pageOfRows } from "../../http/page-of-rows.ts";
import { endpointIdOf, findEndpoint } from "./endpoint-json.ts";

interface AttemptRow {
  readonly delivery_id: number;
  readonly attempted_at: Date;
  readonly status_code: number | null;
  readonly duration_ms: number;
  readonly error: string | null;
  readonly response_body_excerpt: string | null;
}

export const listWebhookDeliveries: HandlerOf<Endpoints["listWebhookDeliveries"]> = async ({ params, query, principal, services }) => {
  const { db } = services;
  const { companyId } = principal;
  const endpointId = endpointIdOf(services.ids, params.id);
  await findEndpoint(db, companyId, endpointId);
  let deliveries = db
    .selectFrom("webhook_deliveries as d")
    .where("d.company_id", "=", companyId)
    .where("d.endpoint_id", "=", endpointId);
  if (query.status !== undefined) deliveries = deliveries.where("d.status", "=", query.status);
  const { rows, pagination } = await pageOfRows(
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
        ])
        .orderBy("d.id", "desc"),
    query,
  );
  const attempts =
    rows.length === 0
      ? []
      : (
          await sql<AttemptRow>`
            select delivery_id, attempted_at, status_code, duration_ms, error, response_body_excerpt
            from (
              select a.*, row_number() over (partition by a.delivery_id order by a.id desc) as position
              from webhook_delivery_attempts a
              where a.company_id = ${companyId} and a.delivery_id = any (${rows.map((row) => row.id)}::bigint[])
            ) latest
            where position <= ${MAX_LISTED_ATTEMPTS}
            order by delivery_id, position`.execute(db)
        ).rows;
  const byDelivery = new Map<number, AttemptRow[]>();
  for (const attempt of attempts) byDelivery.set(attempt.delivery_id, [...(byDelivery.get(attempt.delivery_id) ?? []), attempt]);
  return {
    body: {
      error: false,
      data: rows.map((row) => ({
        event_id: row.public_id,
        event_type: row.type as WebhookEventType,
        event_timestamp: row.occurred_at.toISOString(),
        status: row.status,
        attempt_count: row.attempt_count,
        next_attempt_at: row.status === "pending" ? row.next_attempt_at : null,
        created_at: row.created_at,
        updated_at: row.updated_at,
        completed_at: row.completed_at,
        attempts: (byDelivery.get(row.id) ?? []).map((attempt) => ({
          attempted_at: attempt.attempted_at,
          status_code: attempt.status_code,
          duration_ms: attempt.duration_ms,
          error: attempt.error,
          response_body_excerpt: attempt.response_body_excerpt,
        })),
      })),
      pagination,
    },
  };
};
