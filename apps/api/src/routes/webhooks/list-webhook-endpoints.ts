/** GET /webhooks/endpoints: the company's endpoints, oldest first. */
import type { Endpoints } from "@dc/contract";
import { endpointOrder, listEndpoints } from "@dc/db";
import type { HandlerOf } from "../../http/handler.ts";
import { listWalk } from "../../http/list-walk.ts";
import { presentWebhookEndpoint } from "../../presenters/present-webhook-endpoint.ts";

export const listWebhookEndpoints: HandlerOf<Endpoints["listWebhookEndpoints"]> = async ({ query, principal, services }) => {
  const now = services.clock.now();
  const walk = listWalk(
    services,
    { companyId: principal.companyId, list: "webhook-endpoints", filters: {}, keyset: endpointOrder },
    query,
  );
  const page = await listEndpoints(services.db, principal.companyId, walk.request);
  return {
    body: {
      error: false,
      data: page.rows.map((row) => presentWebhookEndpoint(services.ids, row, now)),
      pagination: walk.pagination(page),
    },
  };
};
