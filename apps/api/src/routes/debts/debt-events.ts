/**
 * The debt.created and debt.updated webhook events of the api's debt writes
 * (debt.deleted is read before its delete, in delete-debt.ts). Each is
 * recorded with the transaction that makes the change, after the change and
 * before the commit (docs/webhooks.md, "Where events are recorded"): committed together or
 * not at all. Payloads come from `@dc/db`'s builders, read in that
 * transaction, so they are the committed state in the api's public shape.
 */
import type { DebtorLinkSigner } from "@dc/crypto";
import { type Db, debtEventData, recordEvents, subscribedWebhookEventTypes } from "@dc/db";
import type { DomainIds as Ids } from "@dc/db";

/**
 * Records `type` (`debt.created` or `debt.updated`) for every debt of
 * `debtIds`, with one payload read and one outbox statement whatever their
 * number. Nothing is read when no endpoint of the company wants the type.
 * `payment_link` is presented as the reads present it, signed at
 * `occurredAt` with the request's `signer` (debtor-page/links.ts).
 */
export const recordDebtEvents = async (
  trx: Db,
  ids: Ids,
  signer: DebtorLinkSigner,
  companyId: number,
  type: "debt.created" | "debt.updated",
  debtIds: ReadonlyArray<number>,
  occurredAt: Date,
): Promise<void> => {
  if (debtIds.length === 0 || !(await subscribedWebhookEventTypes(trx, companyId)).has(type)) return;
  const data = await debtEventData(trx, ids, companyId, debtIds, { signer, now: occurredAt });
  await recordEvents(
    trx,
    debtIds.map((debtId) => {
      const debt = data.get(debtId);
      if (debt === undefined) throw new Error(`debt ${debtId} is not readable in the transaction that wrote it`);
      return { companyId, type, data: debt, occurredAt };
    }),
  );
};
