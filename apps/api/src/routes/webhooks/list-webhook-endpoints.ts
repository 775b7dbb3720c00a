/** GET /webhooks/endpoints: the company's endpoints, oldest first. */
import { type Endpoints, paginationOf } from "@dc/contract";
import { listEndpoints } from "@dc/db";
import type { HandlerOf } from "../../http/handler.ts";
import { presentWebhookEndpoint } from "../../presenters/present-webhook-endpoint.ts";

export const listWebhookEndpoints: HandlerOf<Endpoints["listWebhookEndpoints"]> = async ({ query, principal, services }) => {
  const now = services.clock.now();
  const { rows, total } = await listEndpoints(services.db, principal.companyId, query);
  return {
    body: {
      error: false,
      data: rows.map((row) => presentWebhookEndpoint(services.ids, row, now)),
      pagination: paginationOf(query, total),
    },
  };
};
