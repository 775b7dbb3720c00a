/**
 * The followup.* webhook events of the api's followup writes, recorded with
 * the transaction that makes the change, after the change and before the
 * commit (docs/webhooks.md, "Where events are recorded"): committed together or not at
 * all. The payload is `@dc/db`'s builder, read in that transaction.
 */
import { type Db, followupEventData, recordEvent, subscribedWebhookEventTypes } from "@dc/db";
import type { DomainIds as Ids } from "@dc/db";

/** Records `type` for followup `followupId`; nothing is read when no endpoint of the company wants the type. */
export const recordFollowupEvent = async (
  trx: Db,
  ids: Ids,
  companyId: number,
  type: "followup.created" | "followup.updated",
  followupId: number,
  occurredAt: Date,
): Promise<void> => {
  if (!(await subscribedWebhookEventTypes(trx, companyId)).has(type)) return;
  const data = (await followupEventData(trx, ids, companyId, [followupId])).get(followupId);
  if (data === undefined) throw new Error(`followup ${followupId} is not readable in the transaction that wrote it`);
  await recordEvent(trx, { companyId, type, data, occurredAt });
};
