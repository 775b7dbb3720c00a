/**
 * GET /webhooks/endpoints/{id}/deliveries: the endpoint's deliveries, newest
 * first, each with its event and its latest attempts: two statements whatever
 * the page's size, the page with its total, then the attempts.
 */
import { type Endpoints, MAX_LISTED_ATTEMPTS } from "@dc/contract";
import { type AttemptRow, deliveryOrder, listEndpointDeliveries, listLatestAttempts } from "@dc/db";
import type { HandlerOf } from "../../http/handler.ts";
import { listWalk } from "../../http/list-walk.ts";
import { presentWebhookDelivery } from "../../presenters/present-webhook-delivery.ts";
import { endpointIdOf, findEndpointOr404 } from "./endpoint-lookup.ts";

export const listWebhookDeliveries: HandlerOf<Endpoints["listWebhookDeliveries"]> = async ({ params, query, principal, services }) => {
  const { db } = services;
  const { companyId } = principal;
  const endpointId = endpointIdOf(services.ids, params.id);
  await findEndpointOr404(db, companyId, endpointId);
  const walk = listWalk(
    services,
    { companyId, list: "webhook-deliveries", filters: { endpointId, status: query.status }, keyset: deliveryOrder },
    query,
  );
  const page = await listEndpointDeliveries(db, { companyId, endpointId, status: query.status }, walk.request);
  const { rows } = page;
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
      data: rows.map((row) => presentWebhookDelivery(row, byDelivery.get(row.id) ?? [])),
      pagination: walk.pagination(page),
    },
  };
};
