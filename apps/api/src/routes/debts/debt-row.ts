/**
 * One create entry as an insert row: names (with detect_civility), money in
 * minor units and as text, options with their batch-wide fallbacks, and the
 * debtor seed of its debtor_reference.
 */
import type { CreateDebtBody, EmailValidation } from "@dc/contract";
import { type DebtInsertRow, type DebtorSeed, personColumnsOf } from "@dc/db";
import { DebtStatus, Money } from "@dc/domain";
import { detectCivility } from "./civility.ts";

/** Batch-wide values an entry falls back to. */
export interface EntryDefaults {
  readonly creditorId?: string | null | undefined;
  readonly acceptExpensiveDestination?: boolean | null | undefined;
  readonly detectCivility?: boolean | null | undefined;
  readonly validateEmails?: boolean | null | undefined;
}

export type PreparedRow = Omit<DebtInsertRow, "id" | "debtor_id" | "import_id">;

export const blank = (text: string | null | undefined) => text === undefined || text === null || text.trim() === "";

const value = <T>(field: T | null | undefined): T | null => field ?? null;

export const buildRow = (
  companyId: number,
  creditorId: number,
  checked: { readonly body: CreateDebtBody; readonly minor: number; readonly timelineKey: number | null | undefined },
  defaults: EntryDefaults,
  emailValidation: EmailValidation,
  now: Date,
): PreparedRow => {
  const { body } = checked;
  const names =
    (body.detect_civility ?? defaults.detectCivility ?? false)
      ? detectCivility({
          civility: value(body.civility),
          firstname: value(body.firstname),
          lastname: value(body.lastname),
        })
      : { civility: value(body.civility), firstname: value(body.firstname), lastname: value(body.lastname) };
  const isCreditNote = !blank(body.credited_invoice_reference);
  return {
    company_id: companyId,
    creditor_id: creditorId,
    campaign_id: null,
    timeline_id: checked.timelineKey ?? null,
    status: DebtStatus.initial,
    is_credit_note: isCreditNote,
    credited_invoice_reference: isCreditNote ? value(body.credited_invoice_reference) : null,
    ...names,
    phone: value(body.phone),
    email: value(body.email),
    birthdate: value(body.birthdate),
    amount_minor: checked.minor,
    // A credit note is never collected: nothing remains to pay on it (docs/decisions/0104).
    balance_minor: isCreditNote ? 0 : checked.minor,
    currency: body.currency,
    amount_text: Money.format(checked.minor, body.currency),
    object: value(body.object),
    internal_id: value(body.internal_id),
    invoice_reference: value(body.invoice_reference),
    debtor_reference: value(body.debtor_reference),
    invoice_date: value(body.invoice_date),
    due_date: value(body.due_date),
    address: value(body.address),
    street_address: value(body.street_address),
    street_number: value(body.street_number),
    postal_code: value(body.postal_code),
    city: value(body.city),
    country: value(body.country),
    iban: value(body.iban),
    company: value(body.company),
    debtor_company: value(body.debtor_company),
    payment_link: value(body.payment_link),
    metadata: JSON.stringify(body.metadata ?? {}),
    email_validation: JSON.stringify(emailValidation),
    timeline_start_mode: value(body.timeline_start_mode),
    accept_expensive_destination: body.accept_expensive_destination ?? defaults.acceptExpensiveDestination ?? false,
    import_date: now,
    created_at: now,
    updated_at: now,
  };
};

export const debtorSeedOf = (row: PreparedRow): DebtorSeed | undefined =>
  row.debtor_reference === null
    ? undefined
    : {
        debtor_reference: row.debtor_reference,
        ...personColumnsOf(row),
      };
