/**
 * PATCH /webhooks/endpoints/{id}: any subset of url, description,
 * event_types, enabled and ordered. A new URL is vetted like at creation.
 * Disabling settles the pending deliveries as `disabled` in the same
 * transaction; enabling clears `disabled_reason` (a 410 or a manual stop).
 */
import { type Endpoints, webhookMessages } from "@dc/contract";
import { disablePendingDeliveries, updateEndpoint } from "@dc/db";
import { ValidationFailed } from "../../http/api-error.ts";
import { allowBulkStatements } from "../../http/bulk-statements.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { assertWebhookDestination } from "../../webhooks/destination-policy.ts";
import { presentWebhookEndpoint } from "../../presenters/present-webhook-endpoint.ts";
import { endpointIdOf, findEndpointOr404 } from "./endpoint-lookup.ts";

export const updateWebhookEndpoint: HandlerOf<Endpoints["updateWebhookEndpoint"]> = async ({ params, body, principal, services }) => {
  const id = endpointIdOf(services.ids, params.id);
  if (Object.values(body).every((value) => value === undefined)) {
    throw new ValidationFailed({ details: { body: "must set at least one field" } });
  }
  if (body.url !== undefined) await assertWebhookDestination(services, body.url);
  const { companyId } = principal;
  const now = services.clock.now();
  const row = await services.db.transaction().execute(async (trx) => {
    const current = await findEndpointOr404(trx, companyId, id, { forUpdate: true });
    const disabling = body.enabled === false && current.enabled;
    const enabling = body.enabled === true && !current.enabled;
    if (disabling) {
      await allowBulkStatements(trx, services.config);
      await disablePendingDeliveries(trx, { companyId, endpointId: id, now });
    }
    return updateEndpoint(trx, companyId, id, {
      ...(body.url === undefined ? {} : { url: body.url }),
      ...(body.description === undefined ? {} : { description: body.description }),
      ...(body.event_types === undefined ? {} : { event_types: [...body.event_types] }),
      ...(body.ordered === undefined ? {} : { ordered: body.ordered }),
      ...(disabling ? { enabled: false, disabled_reason: "manual" as const, disabled_at: now } : {}),
      ...(enabling ? { enabled: true, disabled_reason: null, disabled_at: null } : {}),
      updated_at: now,
    });
  });
  return {
    body: { error: false, message: webhookMessages.updated, data: presentWebhookEndpoint(services.ids, row, now) },
  };
};
