/**
 * DELETE /webhooks/endpoints/{id}: removes the endpoint with its deliveries
 * and attempts; the waiting delivery jobs are removed in the same
 * transaction (a running one finds its delivery gone and stops).
 */
import { type Endpoints, webhookMessages } from "@dc/contract";
import { deleteEndpoint, disablePendingDeliveries } from "@dc/db";
import { allowBulkStatements } from "../../http/bulk-statements.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { endpointIdOf, findEndpointOr404 } from "./endpoint-lookup.ts";

export const deleteWebhookEndpoint: HandlerOf<Endpoints["deleteWebhookEndpoint"]> = async ({ params, principal, services }) => {
  const id = endpointIdOf(services.ids, params.id);
  const { companyId } = principal;
  await services.db.transaction().execute(async (trx) => {
    await findEndpointOr404(trx, companyId, id, { forUpdate: true });
    await allowBulkStatements(trx, services.config);
    await disablePendingDeliveries(trx, { companyId, endpointId: id, now: services.clock.now() });
    await deleteEndpoint(trx, companyId, id);
  });
  return { body: { error: false, message: webhookMessages.deleted } };
};
