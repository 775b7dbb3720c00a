/**
 * `debt.updated` webhook events for changed debts of one company, when it
 * subscribes (docs/decisions/0450); `payment_link` as the api's reads
 * present it, signed at `now` (docs/decisions/0670).
 */
import type { DebtorLinkSigner } from "@dc/crypto";
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
  links: DebtorLinkSigner,
  companyId: number,
  debtIds: ReadonlyArray<number>,
  now: Date,
  wanted?: ReadonlySet<string>,
): Promise<WebhookEventInput[]> => {
  if (debtIds.length === 0) return [];
  const subscribed = wanted ?? (await subscribedWebhookEventTypes(trx, companyId));
  if (!subscribed.has("debt.updated")) return [];
  const data = await debtEventDataBatch(trx, ids, companyId, debtIds, { signer: links, now });
  return [...data.values()].map((payload) => ({
    companyId,
    type: "debt.updated" as const,
    data: payload,
    occurredAt: now,
  }));
};
