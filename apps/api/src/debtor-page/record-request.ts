/**
 * Records a request the debtor made on the page (docs/decisions/0673) and,
 * in the same transaction, the `debtor_request.created` webhook event whose
 * `data` is the todo as GET /todos shows it, so the review queue and the
 * integrator hear of the request together or not at all.
 */
import {
  insertDebtorRequest,
  type NewDebtorRequest,
  recordEvents,
  subscribedWebhookEventTypes,
  todoEventData,
  todoKeyText,
} from "@dc/db";
import type { AppServices } from "../services.ts";

/** Inserts the request and its event; returns the request's id. */
export const recordDebtorRequest = (services: AppServices, request: NewDebtorRequest): Promise<number> =>
  services.db.transaction().execute(async (trx) => {
    const id = await insertDebtorRequest(trx, request);
    const { companyId } = request;
    if ((await subscribedWebhookEventTypes(trx, companyId)).has("debtor_request.created")) {
      const key = { source: "debtor_request", id } as const;
      const data = (await todoEventData(trx, services.ids, companyId, [key])).get(todoKeyText(key));
      if (data === undefined) throw new Error(`todo ${todoKeyText(key)} is not readable in the transaction that wrote it`);
      await recordEvents(trx, [{ companyId, type: "debtor_request.created", data, occurredAt: request.now }]);
    }
    return id;
  });
