/**
 * PUT and PATCH /debts/{id} (docs/decisions/0111): any subset of the
 * writable fields, `timeline_id` and `debtor_reference` included; absent
 * fields are unchanged and `null` clears. A new e-mail drops the previous
 * validation report. Status, amount, currency and the credit-note reference
 * are read-only (the body schema rejects them). `debt.updated` is recorded in
 * the update's transaction.
 */
import { debtMessages, type Endpoints, messages } from "@dc/contract";
import { Money } from "@dc/domain";
import {
  type Database,
  type Debt,
  type DebtorSeed,
  type DebtUpdate,
  findDebtView,
  personColumns,
  personColumnsOf,
  upsertDebtorsByReference,
  violatedUniqueConstraint,
} from "@dc/db";
import { type Kysely, sql } from "kysely";
import { Conflict, NotFound, ValidationFailed } from "../../http/api-error.ts";
import { retriedTransaction } from "../../http/retried-transaction.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { recordDebtEvents } from "./debt-events.ts";
import { presentDebt } from "./debt-json.ts";
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

/**
 * A new identity for a campaign debt waits for an apply of its campaign in
 * progress, and an apply starting meanwhile waits for it: the worker holds
 * the campaign's row (`for no key update`) while it plans from the
 * identities it read and writes, and this takes it `for share`, before the
 * debt's row, in the worker's order. Without it, an apply created a debt
 * under an identity given to another debt since its read (a duplicate key,
 * then a retry), or deadlocked with the update (docs/decisions/0353).
 */
const waitForCampaignApply = async (trx: Kysely<Database>, companyId: number, debtId: number): Promise<void> => {
  await sql`
    select 1 from campaigns c
    where c.company_id = ${companyId}
      and c.id = (select d.campaign_id from debts d where d.id = ${debtId} and d.company_id = ${companyId})
    for share of c`.execute(trx);
};

export const updateDebt: HandlerOf<Endpoints["updateDebt"]> = async ({ params, body, rawBody, principal, services }) => {
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
    if (rounded !== undefined) throw new ValidationFailed({ details: { [`metadata.${rounded.path}`]: rounded.message } });
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
    if (changesIdentity) await waitForCampaignApply(trx, companyId, debtId);
    const current = await trx
      .selectFrom("debts")
      .selectAll()
      .where("id", "=", debtId)
      .where("company_id", "=", companyId)
      .forUpdate()
      .executeTakeFirst();
    if (current === undefined) throw new NotFound({ message: messages.debtNotFound });
    const next = { ...current, ...changes } as typeof current;
    const blank = (value: string | null) => value === null || value.trim() === "";
    if (blank(next.lastname) && blank(next.firstname) && blank(next.debtor_company)) {
      throw new ValidationFailed({ details: { lastname: messagesFor.nameRequired } });
    }
    if (typeof timelineKey === "number") {
      const timeline = await trx
        .selectFrom("timelines")
        .select("id")
        .where("id", "=", timelineKey)
        .where("company_id", "=", companyId)
        .where("archived_at", "is", null)
        .executeTakeFirst();
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
      await trx
        .updateTable("debts")
        .set({ ...changes, updated_at: now })
        .where("id", "=", debtId)
        .where("company_id", "=", companyId)
        .execute();
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
    await recordDebtEvents(trx, services.ids, companyId, "debt.updated", [debtId], now);
    const updated = await findDebtView(trx, companyId, debtId);
    if (updated === undefined) throw new Error(`debt ${debtId} updated but not found in the same transaction`);
    return updated;
  });
  return {
    body: {
      error: false,
      message: debtMessages.updated,
      data: presentDebt(services.ids, found.view, found.collectionAgency),
    },
  };
};
