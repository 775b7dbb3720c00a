/**
 * POST /webhooks/events/{eventId}/replay: the event again to each enabled
 * endpoint that had a delivery of it, or to the one `endpoint_id` names.
 * Event ids are `evt_` + 32 hex digits; anything else is the same 404 as an
 * unknown or foreign event. The event is read `for key share`, as the
 * delivery's reference check would lock it: a retention purge deleting it
 * meanwhile makes this a 404 (the read waits for the purge's commit), never
 * a failed insert, and a purge that comes second skips it (0021).
 */
import { type Endpoints, webhookErrorCodes, webhookMessages } from "@dc/contract";
import { replayEvent, shareEvent } from "@dc/db";
import { Conflict, NotFound } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { endpointIdOf, findEndpointOr404 } from "./endpoint-lookup.ts";

const EVENT_ID = /^evt_[0-9a-f]{32}$/;

export const replayWebhookEvent: HandlerOf<Endpoints["replayWebhookEvent"]> = async ({ params, query, principal, services }) => {
  const { companyId } = principal;
  if (!EVENT_ID.test(params.eventId)) throw new NotFound({ message: webhookMessages.eventNotFound });
  const endpointId = query.endpoint_id === undefined ? undefined : endpointIdOf(services.ids, query.endpoint_id);
  const queued = await services.db.transaction().execute(async (trx) => {
    const eventId = await shareEvent(trx, companyId, params.eventId);
    if (eventId === undefined) throw new NotFound({ message: webhookMessages.eventNotFound });
    if (endpointId !== undefined) {
      const endpoint = await findEndpointOr404(trx, companyId, endpointId, { forUpdate: true });
      if (!endpoint.enabled)
        throw new Conflict({
          errorCode: webhookErrorCodes.endpointDisabled,
          message: webhookMessages.endpointDisabled,
        });
    }
    return replayEvent(trx, {
      companyId,
      eventId,
      now: services.clock.now(),
      ...(endpointId === undefined ? {} : { endpointId }),
    });
  });
  return { body: { error: false, message: webhookMessages.replayed, data: { deliveries_queued: queued } } };
};
