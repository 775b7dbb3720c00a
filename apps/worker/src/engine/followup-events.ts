/** `followup.updated` webhook events for changed followups of one company, when it subscribes (docs/decisions/0450). */
import {
  type DbTransaction,
  type EventIds,
  followupEventData,
  subscribedWebhookEventTypes,
  type WebhookEventInput,
} from "@dc/db";

export const followupUpdatedEvents = async (
  trx: DbTransaction,
  ids: EventIds,
  companyId: number,
  followupIds: ReadonlyArray<number>,
  now: Date,
  wanted?: ReadonlySet<string>,
): Promise<WebhookEventInput[]> => {
  if (followupIds.length === 0) return [];
  const subscribed = wanted ?? (await subscribedWebhookEventTypes(trx, companyId));
  if (!subscribed.has("followup.updated")) return [];
  const data = await followupEventData(trx, ids, companyId, followupIds);
  return [...data.values()].map((payload) => ({
    companyId,
    type: "followup.updated" as const,
    data: payload,
    occurredAt: now,
  }));
};
