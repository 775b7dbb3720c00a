/**
 * Turns decoded create entries (one for POST /debts, up to 1,000 for the
 * batch) into insert rows, failures and skips, with a fixed number of
 * set-based lookups whatever the entry count: creditors, timelines, api
 * debts already holding an internal_id, and invoices a credit note may
 * reference. Rules: docs/decisions/0103, 0104, 0105, 0106.
 */
import type { CreateDebtBody, EmailValidation } from "@dc/contract";
import type { DebtorSeed } from "@dc/db";
import { Money } from "@dc/domain";
import { Either } from "effect";
import type { AppServices } from "../../services.ts";
import { lookupReferences, referenceKey } from "./debt-references.ts";
import { blank, buildRow, debtorSeedOf, type EntryDefaults, type PreparedRow } from "./debt-row.ts";
import { validateEmail } from "./email-validation.ts";

export type { EntryDefaults, PreparedRow };

export interface Entry {
  readonly index: number;
  readonly tempId: string | null;
  readonly body: CreateDebtBody;
  /** Why the JSON text of `amount` is not the number read from it, when it is not (`Money.inexactNumbers`). */
  readonly inexactAmount?: string | undefined;
  /** The first number of `metadata` whose JSON text is not the number read from it, with its path below `metadata`. */
  readonly inexactMetadata?: { readonly path: string; readonly message: string } | undefined;
}

export type Outcome =
  | {
      readonly kind: "failed";
      readonly index: number;
      readonly tempId: string | null;
      readonly details: Readonly<Record<string, string>>;
    }
  | {
      readonly kind: "skipped";
      readonly index: number;
      readonly tempId: string | null;
      readonly reason: "duplicate_internal_id" | "duplicate_in_batch";
      readonly internalId: string;
      readonly existingDebtId: number | null;
      readonly duplicateOfIndex: number | null;
    }
  | {
      readonly kind: "valid";
      readonly index: number;
      readonly tempId: string | null;
      readonly row: PreparedRow;
      readonly debtor: DebtorSeed | undefined;
      readonly emailValidation: EmailValidation;
    };

export const messagesFor = {
  unknownCreditor: "unknown creditor",
  noCreditor: "is required: the company has no creditor",
  unknownTimeline: "unknown or archived timeline",
  nameRequired: "a debtor name is required: lastname, firstname or debtor_company",
  noInvoice: "no debt of this creditor has this invoice_reference",
  currencyMismatch: (currency: string) => `must be the credited invoice's currency (${currency})`,
} as const;

/** What is wrong with the credited invoice of a credit note, given the invoices it may reference (docs/decisions/0104). */
const creditedInvoiceProblems = (
  invoices: ReadonlyMap<string, ReadonlySet<string>>,
  creditorId: number,
  body: CreateDebtBody,
): Record<string, string> => {
  if (blank(body.credited_invoice_reference)) return {};
  const currencies = invoices.get(referenceKey(creditorId, body.credited_invoice_reference!));
  if (currencies === undefined) return { credited_invoice_reference: messagesFor.noInvoice };
  if (!currencies.has(body.currency)) return { currency: messagesFor.currencyMismatch([...currencies].join(", ")) };
  return {};
};

/** First pass, without the database: amounts, names and id decoding. */
interface Checked {
  readonly entry: Entry;
  readonly details: Record<string, string>;
  readonly minor: number;
  /** Decoded creditor id; null when the entry names none (the company's first creditor applies). */
  readonly creditorKey: number | null | undefined;
  readonly timelineKey: number | null | undefined;
}

const check = (services: AppServices, entry: Entry, defaults: EntryDefaults): Checked => {
  const { body } = entry;
  const details: Record<string, string> = {};
  const amount = Money.toMinor(body.amount, body.currency);
  if (entry.inexactAmount !== undefined) details["amount"] = entry.inexactAmount;
  else if (Either.isLeft(amount)) details["amount"] = amount.left.message;
  // Stored from the parsed body, such a number would be kept as another one.
  if (entry.inexactMetadata !== undefined) details[`metadata.${entry.inexactMetadata.path}`] = entry.inexactMetadata.message;
  if (blank(body.lastname) && blank(body.firstname) && blank(body.debtor_company))
    details["lastname"] = messagesFor.nameRequired;
  const creditorRef = body.creditor_id ?? defaults.creditorId ?? null;
  const creditorKey = creditorRef === null ? null : services.ids.decode("creditor", creditorRef);
  if (creditorKey === undefined) details["creditor_id"] = messagesFor.unknownCreditor;
  const timelineRef = body.timeline_id ?? null;
  const timelineKey = timelineRef === null ? null : services.ids.decode("timeline", timelineRef);
  if (timelineKey === undefined) details["timeline_id"] = messagesFor.unknownTimeline;
  return { entry, details, minor: Either.isRight(amount) ? amount.right : 0, creditorKey, timelineKey };
};

/**
 * Classifies every entry, in index order. The first entry of a (creditor,
 * internal_id) wins; later ones and those matching an existing api debt are
 * skipped. A credit note may reference an invoice of the database or of any
 * valid entry of the same request.
 */
export const prepareDebts = async (
  services: AppServices,
  companyId: number,
  entries: ReadonlyArray<Entry>,
  defaults: EntryDefaults,
): Promise<Outcome[]> => {
  const now = services.clock.now();
  const checked = entries.map((entry) => check(services, entry, defaults));
  const found = await lookupReferences(services.db, companyId, {
    creditorIds: checked.map((item) => item.creditorKey),
    timelineIds: checked.map((item) => item.timelineKey),
    internalIds: checked.map((item) => item.entry.body.internal_id),
    creditedReferences: checked.map((item) => item.entry.body.credited_invoice_reference),
  });
  const creditorOf = (item: Checked): number | undefined => {
    if (item.creditorKey === null) {
      if (found.firstCreditor === null) item.details["creditor_id"] = messagesFor.noCreditor;
      return found.firstCreditor ?? undefined;
    }
    if (item.creditorKey === undefined) return undefined;
    if (!found.creditors.has(item.creditorKey)) item.details["creditor_id"] = messagesFor.unknownCreditor;
    return item.creditorKey;
  };
  const creditorIds = checked.map(creditorOf);
  const invoices = new Map([...found.invoices].map(([invoiceKey, currencies]) => [invoiceKey, new Set(currencies)]));
  checked.forEach((item, position) => {
    const creditorId = creditorIds[position];
    const { body } = item.entry;
    if (typeof item.timelineKey === "number" && !found.timelines.has(item.timelineKey)) {
      item.details["timeline_id"] = messagesFor.unknownTimeline;
    }
    const stillValid = Object.keys(item.details).length === 0;
    if (
      creditorId !== undefined &&
      stillValid &&
      blank(body.credited_invoice_reference) &&
      !blank(body.invoice_reference)
    ) {
      const invoiceKey = referenceKey(creditorId, body.invoice_reference!);
      invoices.set(invoiceKey, new Set([...(invoices.get(invoiceKey) ?? []), body.currency]));
    }
  });
  const claimed = new Map<string, number>();
  const outcomes = checked.map((item, position): Outcome => {
    const { entry } = item;
    const { body } = entry;
    const creditorId = creditorIds[position];
    if (creditorId !== undefined) Object.assign(item.details, creditedInvoiceProblems(invoices, creditorId, body));
    if (creditorId === undefined || Object.keys(item.details).length > 0) {
      return { kind: "failed", index: entry.index, tempId: entry.tempId, details: item.details };
    }
    if (!blank(body.internal_id)) {
      const internalId = body.internal_id!;
      const identity = referenceKey(creditorId, internalId);
      const existing = found.internalIds.get(identity);
      const earlier = claimed.get(identity);
      if (existing !== undefined || earlier !== undefined) {
        return {
          kind: "skipped",
          index: entry.index,
          tempId: entry.tempId,
          reason: existing !== undefined ? "duplicate_internal_id" : "duplicate_in_batch",
          internalId,
          existingDebtId: existing ?? null,
          duplicateOfIndex: existing !== undefined ? null : (earlier ?? null),
        };
      }
      claimed.set(identity, entry.index);
    }
    const emailValidation = validateEmail(body.email ?? null, body.validate_emails ?? defaults.validateEmails ?? false);
    const row = buildRow(companyId, creditorId, { ...item, body }, defaults, emailValidation, now);
    return { kind: "valid", index: entry.index, tempId: entry.tempId, row, debtor: debtorSeedOf(row), emailValidation };
  });
  // An invoice entry counted above may have been skipped since (its internal_id was taken):
  // it creates no invoice, so a credit note may reference only the invoices really created.
  const created = new Map([...found.invoices].map(([invoiceKey, currencies]) => [invoiceKey, new Set(currencies)]));
  for (const outcome of outcomes) {
    if (outcome.kind !== "valid" || outcome.row.is_credit_note || outcome.row.invoice_reference === null) continue;
    const invoiceKey = referenceKey(outcome.row.creditor_id, outcome.row.invoice_reference);
    created.set(invoiceKey, new Set([...(created.get(invoiceKey) ?? []), outcome.row.currency]));
  }
  return outcomes.map((outcome, position) => {
    if (outcome.kind !== "valid" || !outcome.row.is_credit_note) return outcome;
    const details = creditedInvoiceProblems(created, outcome.row.creditor_id, checked[position]!.entry.body);
    return Object.keys(details).length === 0
      ? outcome
      : { kind: "failed", index: outcome.index, tempId: outcome.tempId, details };
  });
};
