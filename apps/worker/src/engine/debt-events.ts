/** `debt.updated` webhook events for changed debts of one company, when it subscribes (docs/decisions/0450). */
import {
  type DbTransaction,
  debtEventDataBatch,
  type EventIds,
  subscribedWebhookEventTypes,
  type WebhookEventInput,
} from "@dc/db";

export const debtUpdatedEvents = async (
  trx: DbTransaction,
  ids: EventIds,
  companyId: number,
  debtIds: ReadonlyArray<number>,
  now: Date,
  wanted?: ReadonlySet<string>,
): Promise<WebhookEventInput[]> => {
  if (debtIds.length === 0) return [];
  const subscribed = wanted ?? (await subscribedWebhookEventTypes(trx, companyId));
  if (!subscribed.has("debt.updated")) return [];
  const data = await debtEventDataBatch(trx, ids, companyId, debtIds);
  return [...data.values()].map((payload) => ({
    companyId,
    type: "debt.updated" as const,
    data: payload,
    occurredAt: now,
  }));
};
