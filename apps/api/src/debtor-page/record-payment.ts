/**
 * Records a payment a provider completed (the Stripe webhook, the sandbox
 * checkout) in one transaction: the ledger row and the lower balance
 * (`recordProviderPayment`), the enrollment stopped when the debt is now
 * paid (docs/decisions/0602), the followups whose link or call led to it
 * (`triggered_payment`, docs/decisions/0659), and the webhook events `payment.recorded`
 * and `debt.settled` or `debt.updated`. A payment id already recorded for
 * the debt changes nothing (docs/decisions/0672).
 */
import type { DebtorLinkSigner } from "@dc/crypto";
import {
  debtEventData,
  markTriggeringFollowups,
  paymentEventData,
  type ProviderPayment,
  recordEvents,
  recordProviderPayment,
  stopEnrollments,
  subscribedWebhookEventTypes,
  type WebhookEventInput,
} from "@dc/db";
import type { AppServices } from "../services.ts";

/** Whether the payment was new. `signer` signs the debt payload's `payment_link` (links.ts). */
export const recordCompletedPayment = (services: AppServices, signer: DebtorLinkSigner, payment: ProviderPayment): Promise<boolean> =>
  services.db.transaction().execute(async (trx) => {
    const result = await recordProviderPayment(trx, payment);
    if (!result.recorded) return false;
    const { companyId, debtId, paidAt } = payment;
    if (result.paid) await stopEnrollments(trx, { companyId, debtIds: [debtId], reason: "paid", now: paidAt });
    await markTriggeringFollowups(trx, companyId, [result.paymentId]);
    const wanted = await subscribedWebhookEventTypes(trx, companyId);
    const events: WebhookEventInput[] = [];
    if (wanted.has("payment.recorded")) {
      const data = await paymentEventData(trx, services.ids, companyId, [result.paymentId]);
      events.push({ companyId, type: "payment.recorded", data: data.get(result.paymentId), occurredAt: paidAt });
    }
    const debtType = result.paid ? "debt.settled" : "debt.updated";
    if (wanted.has(debtType)) {
      const data = await debtEventData(trx, services.ids, companyId, [debtId], { signer, now: paidAt });
      events.push({ companyId, type: debtType, data: data.get(debtId), occurredAt: paidAt });
    }
    await recordEvents(trx, events);
    return true;
  });
