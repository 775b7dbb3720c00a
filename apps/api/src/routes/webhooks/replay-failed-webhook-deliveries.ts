/**
 * POST /webhooks/endpoints/{id}/replay-failed: every `failed` or `disabled`
 * delivery of an enabled endpoint back to pending, each with its job, in one
 * transaction. New attempts carry the event's original `webhook-id`.
 */
import { type Endpoints, webhookErrorCodes, webhookMessages } from "@dc/contract";
import { replayFailedDeliveries } from "@dc/db";
import { Conflict } from "../../http/api-error.ts";
import { allowBulkStatements } from "../../http/bulk-statements.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { endpointIdOf, findEndpointOr404 } from "./endpoint-lookup.ts";

export const replayFailedWebhookDeliveries: HandlerOf<Endpoints["replayFailedWebhookDeliveries"]> = async ({
  params,
  principal,
  services,
}) => {
  const endpointId = endpointIdOf(services.ids, params.id);
  const { companyId } = principal;
  const queued = await services.db.transaction().execute(async (trx) => {
    const endpoint = await findEndpointOr404(trx, companyId, endpointId, { forUpdate: true });
    if (!endpoint.enabled)
      throw new Conflict({ errorCode: webhookErrorCodes.endpointDisabled, message: webhookMessages.endpointDisabled });
    await allowBulkStatements(trx, services.config);
    return replayFailedDeliveries(trx, { companyId, endpointId, now: services.clock.now() });
  });
  return { body: { error: false, message: webhookMessages.replayed, data: { deliveries_queued: queued } } };
};
