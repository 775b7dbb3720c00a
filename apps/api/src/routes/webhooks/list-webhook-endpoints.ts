/** GET /webhooks/endpoints: the company's endpoints, oldest first. */
import type { Endpoints } from "@dc/contract";
import type { HandlerOf } from "../../http/handler.ts";
import { pageOfRows } from "../../http/page-of-rows.ts";
import { endpointColumns, presentEndpoint } from "./endpoint-json.ts";

export const listWebhookEndpoints: HandlerOf<Endpoints["listWebhookEndpoints"]> = async ({ query, principal, services }) => {
  const now = services.clock.now();
  const { rows, pagination } = await pageOfRows(
    services.db,
    services.db.selectFrom("webhook_endpoints").where("company_id", "=", principal.companyId),
    (endpoints) => endpoints.select(endpointColumns).orderBy("id"),
    query,
  );
  return { body: { error: false, data: rows.map((row) => presentEndpoint(services.ids, row, now)), pagination } };
};
