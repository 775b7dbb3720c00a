/** GET /webhooks/endpoints/{id}: one endpoint of the company, without its secret. */
import { type Endpoints, webhookMessages } from "@dc/contract";
import type { HandlerOf } from "../../http/handler.ts";
import { presentWebhookEndpoint } from "../../presenters/present-webhook-endpoint.ts";
import { endpointIdOf, findEndpointOr404 } from "./endpoint-lookup.ts";

export const getWebhookEndpoint: HandlerOf<Endpoints["getWebhookEndpoint"]> = async ({
  params,
  principal,
  services,
}) => {
  const row = await findEndpointOr404(services.db, principal.companyId, endpointIdOf(services.ids, params.id));
  return {
    body: {
      error: false,
      message: webhookMessages.retrieved,
      data: presentWebhookEndpoint(services.ids, row, services.clock.now()),
    },
  };
};
