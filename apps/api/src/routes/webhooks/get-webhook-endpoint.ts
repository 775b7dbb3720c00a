/** GET /webhooks/endpoints/{id}: one endpoint of the company, without its secret. */
import { type Endpoints, webhookMessages } from "@dc/contract";
import type { HandlerOf } from "../../http/handler.ts";
import { endpointIdOf, findEndpoint, presentEndpoint } from "./endpoint-json.ts";

export const getWebhookEndpoint: HandlerOf<Endpoints["getWebhookEndpoint"]> = async ({ params, principal, services }) => {
  const row = await findEndpoint(services.db, principal.companyId, endpointIdOf(services.ids, params.id));
  return { body: { error: false, message: webhookMessages.retrieved, data: presentEndpoint(services.ids, row, services.clock.now()) } };
};
