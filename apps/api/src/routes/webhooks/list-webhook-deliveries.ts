/**
 * GET /webhooks/endpoints/{id}/deliveries: the endpoint's deliveries, newest
 * first, each with its event and its latest attempts: two statements whatever
 * the page's size, the page with its total, then the attempts.
 */
import { type Endpoints, MAX_LISTED_ATTEMPTS, paginationOf, type WebhookEventType } from "@dc/contract";
import { type AttemptRow, listEndpointDeliveries, listLatestAttempts } from "@dc/db";
import type { HandlerOf } from "../../http/handler.ts";
import { endpointIdOf, findEndpointOr404 } from "./endpoint-lookup.ts";

export const listWebhookDeliveries: HandlerOf<Endpoints["listWebhookDeliveries"]> = async ({ params, query, principal, services }) => {
  const { db } = services;
  const { companyId } = principal;
  const endpointId = endpointIdOf(services.ids, params.id);
  await findEndpointOr404(db, companyId, endpointId);
  const { rows, total } = await listEndpointDeliveries(db, { companyId, endpointId, status: query.status }, query);
  const attempts = await listLatestAttempts(
    db,
    companyId,
    rows.map((row) => row.id),
    MAX_LISTED_ATTEMPTS,
  );
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
      pagination: paginationOf(query, total),
    },
  };
};
