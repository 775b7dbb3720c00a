/**
 * PUT and PATCH /debts/{id} (docs/decisions/0111): any subset of the
 * writable fields, `timeline_id` and `debtor_reference` included; absent
 * fields are unchanged and `null` clears. A new e-mail drops the previous
 * validation report. A new `timeline_id` restarts the debt on that timeline
 * and `null` stops its enrollment, in the update's transaction
 * (docs/decisions/0600, 0602); the same `timeline_id` again restarts nothing. Status, amount, currency and the credit-note reference
 * are read-only (the body schema rejects them). `debt.updated` is recorded in
 * the update's transaction.
 */
import { debtMessages, type Endpoints, messages } from "@dc/contract";
import { Money } from "@dc/domain";
import {
  type Debt,
  type DebtorSeed,
  type DebtUpdate,
  enrollDebts,
  findActiveTimelineIds,
  findDebtView,
  lockDebt,
  personColumns,
  personColumnsOf,
  shareDebtCampaign,
  stopEnrollments,
  updateDebt as updateCompanyDebt,
  upsertDebtorsByReference,
  violatedUniqueConstraint,
} from "@dc/db";
import { Conflict, NotFound, ValidationFailed } from "../../http/api-error.ts";
import { retriedTransaction } from "../../http/retried-transaction.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { recordDebtEvents } from "./debt-events.ts";
import { debtLinkSigner, readDebtLinks } from "../../debtor-page/links.ts";
import { presentDebt } from "../../presenters/present-debt.ts";
import { messagesFor } from "./prepare-debts.ts";

type Body = Parameters<HandlerOf<Endpoints["updateDebt"]>>[0]["body"];

const plainFields = [
  ...personColumns,
  "object",
  "internal_id",
  "invoice_reference",
  "debtor_reference",
  "invoice_date",
  "due_date",
  "iban",
  "company",
  "payment_link",
  "timeline_start_mode",
] as const;

const seedOf = (reference: string, debt: Debt): DebtorSeed => ({
  debtor_reference: reference,
  ...personColumnsOf(debt),
});

export const updateDebt: HandlerOf<Endpoints["updateDebt"]> = async ({
  params,
  body,
  rawBody,
  principal,
  services,
  ctx,
}) => {
  const { companyId } = principal;
  const debtId = services.ids.decode("debt", params.id);
  if (debtId === undefined) throw new NotFound({ message: messages.debtNotFound });
  const now = services.clock.now();
  const changes: DebtUpdate = {};
  for (const field of plainFields) {
    const value = (body as Body)[field];
    if (value !== undefined) Object.assign(changes, { [field]: value });
  }
  if (body.metadata !== undefined) {
    // Stored from the parsed body, a number JSON.parse rounded would be kept as another one.
    const inexact = body.metadata === null ? undefined : Money.inexactNumbers(rawBody.toString("utf8"));
    const rounded = inexact && Money.firstInexactWithin(inexact, (inexact.value as { metadata?: unknown }).metadata);
    if (rounded !== undefined)
      throw new ValidationFailed({ details: { [`metadata.${rounded.path}`]: rounded.message } });
    changes.metadata = JSON.stringify(body.metadata ?? {});
  }
  if (body.accept_expensive_destination !== undefined)
    changes.accept_expensive_destination = body.accept_expensive_destination ?? false;
  let timelineKey: number | null | undefined;
  if (body.timeline_id !== undefined) {
    timelineKey = body.timeline_id === null ? null : services.ids.decode("timeline", body.timeline_id);
    if (timelineKey === undefined)
      throw new ValidationFailed({ details: { timeline_id: messagesFor.unknownTimeline } });
    changes.timeline_id = timelineKey;
  }
  if (Object.keys(changes).length === 0)
    throw new ValidationFailed({ details: { body: "must set at least one field" } });
  if (body.email !== undefined) changes.email_validation = null;

  const changesIdentity = body.internal_id !== undefined || body.invoice_reference !== undefined;
  // Retried as a whole if it deadlocks, e.g. with a snapshot applying to the debt's campaign.
  // The answer is read in the same transaction: a failure after the update must not leave it written
  // under a 500, and a debt deleted just after the commit must not turn the update into a 404.
  const found = await retriedTransaction(services.db, async (trx) => {
    // A new identity for a campaign debt waits for an apply of its campaign in progress,
    // taking the campaign's row before the debt's, in the worker's order (docs/decisions/0353).
    if (changesIdentity) await shareDebtCampaign(trx, companyId, debtId);
    const current = await lockDebt(trx, companyId, debtId);
    if (current === undefined) throw new NotFound({ message: messages.debtNotFound });
    const next = { ...current, ...changes } as typeof current;
    const blank = (value: string | null) => value === null || value.trim() === "";
    if (blank(next.lastname) && blank(next.firstname) && blank(next.debtor_company)) {
      throw new ValidationFailed({ details: { lastname: messagesFor.nameRequired } });
    }
    if (typeof timelineKey === "number") {
      const [timeline] = await findActiveTimelineIds(trx, companyId, [timelineKey]);
      if (timeline === undefined) throw new ValidationFailed({ details: { timeline_id: messagesFor.unknownTimeline } });
    }
    if (body.debtor_reference !== undefined) {
      const reference = next.debtor_reference;
      if (reference === null) changes.debtor_id = null;
      else {
        const debtors = await upsertDebtorsByReference(trx, companyId, now, [seedOf(reference, next)]);
        changes.debtor_id = debtors.get(reference) ?? null;
      }
    }
    try {
      await updateCompanyDebt(trx, companyId, debtId, { ...changes, updated_at: now });
    } catch (error) {
      const index = violatedUniqueConstraint(error);
      if (index === "debts_api_internal_id_key" || index === "debts_campaign_internal_id_key") {
        throw new Conflict({ errorCode: "duplicate_internal_id", message: debtMessages.duplicateInternalId });
      }
      if (index === "debts_campaign_invoice_reference_key") {
        throw new ValidationFailed({
          details: { invoice_reference: "is already used by another debt of this campaign" },
        });
      }
      throw error;
    }
    if (timelineKey === null) {
      await stopEnrollments(trx, { companyId, debtIds: [debtId], reason: "timeline_removed", now });
    } else if (timelineKey !== undefined) {
      // An unchanged timeline enrolls a debt that has no enrollment yet and leaves a running one alone.
      await enrollDebts(trx, { companyId, debtIds: [debtId], now, restart: timelineKey !== current.timeline_id });
    }
    await recordDebtEvents(trx, services.ids, debtLinkSigner(services, ctx), companyId, "debt.updated", [debtId], now);
    const updated = await findDebtView(trx, companyId, debtId);
    if (updated === undefined) throw new Error(`debt ${debtId} updated but not found in the same transaction`);
    return updated;
  });
  return {
    body: {
      error: false,
      message: debtMessages.updated,
      data: presentDebt(services.ids, found.view, found.collectionAgency, readDebtLinks(services, ctx)),
    },
  };
};
