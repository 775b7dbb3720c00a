/**
 * The database facts a batch of new debts depends on, read with a fixed
 * number of set-based queries: the company's first creditor and which named
 * creditors and (non-archived) timelines are its own, the api debts already
 * holding an internal_id, and the invoices a credit note may reference.
 */
import {
  type Db,
  findActiveTimelineIds,
  findApiDebtsByInternalId,
  findCreditorIds,
  findInvoiceCurrencies,
} from "@dc/db";

export interface References {
  readonly firstCreditor: number | null;
  readonly creditors: ReadonlySet<number>;
  readonly timelines: ReadonlySet<number>;
  /** `${creditor}:${internal_id}` -> debt id, for api debts. */
  readonly internalIds: ReadonlyMap<string, number>;
  /** `${creditor}:${invoice_reference}` -> currencies of the non-credit-note debts holding it. */
  readonly invoices: ReadonlyMap<string, ReadonlySet<string>>;
}

export const referenceKey = (creditorId: number, reference: string) => `${creditorId}:${reference}`;

const distinct = <T>(values: ReadonlyArray<T | null | undefined>): T[] => [
  ...new Set(values.filter((value): value is T => value !== null && value !== undefined)),
];

/** What the entries of one request refer to; null and undefined values are ignored. */
export interface Wanted {
  readonly creditorIds: ReadonlyArray<number | null | undefined>;
  readonly timelineIds: ReadonlyArray<number | null | undefined>;
  readonly internalIds: ReadonlyArray<string | null | undefined>;
  readonly creditedReferences: ReadonlyArray<string | null | undefined>;
}

/** Four queries, run together, whatever the number of entries. */
export const lookupReferences = async (db: Db, companyId: number, wanted: Wanted): Promise<References> => {
  const creditorIds = distinct(wanted.creditorIds);
  const timelineIds = distinct(wanted.timelineIds);
  const internalIds = distinct(wanted.internalIds);
  const creditedReferences = distinct(wanted.creditedReferences);
  const [creditorRow, timelines, existing, invoices] = await Promise.all([
    findCreditorIds(db, companyId, creditorIds),
    findActiveTimelineIds(db, companyId, timelineIds),
    findApiDebtsByInternalId(db, companyId, internalIds),
    findInvoiceCurrencies(db, companyId, creditedReferences),
  ]);
  const invoiceCurrencies = new Map<string, Set<string>>();
  for (const row of invoices) {
    if (row.invoice_reference === null) continue;
    const invoiceKey = referenceKey(row.creditor_id, row.invoice_reference);
    invoiceCurrencies.set(invoiceKey, new Set([...(invoiceCurrencies.get(invoiceKey) ?? []), row.currency]));
  }
  return {
    firstCreditor: creditorRow?.first_id ?? null,
    creditors: new Set((creditorRow?.found ?? []).map(Number)),
    timelines: new Set(timelines),
    internalIds: new Map(
      existing.flatMap((row) =>
        row.internal_id === null ? [] : [[referenceKey(row.creditor_id, row.internal_id), row.id] as const],
      ),
    ),
    invoices: invoiceCurrencies,
  };
};
