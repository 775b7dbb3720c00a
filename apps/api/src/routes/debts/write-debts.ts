/**
 * Writes the valid entries of a create request inside the caller's
 * transaction: debtors by reference (one statement), debt ids (one), debts
 * (one), their enrollment on their timeline (two, docs/decisions/0600), then
 * `debt.created` for every inserted debt (one payload read, one outbox
 * statement). An entry whose internal_id a concurrent request took in the
 * meantime is reported as not inserted, and has no event.
 */
import type { DebtorLinkSigner } from "@dc/crypto";
import { allocateDebtIds, type DbTransaction, enrollDebts, insertDebts, upsertDebtorsByReference } from "@dc/db";
import type { DomainIds as Ids } from "@dc/db";
import { recordDebtEvents } from "./debt-events.ts";
import type { Outcome } from "./prepare-debts.ts";

type Valid = Extract<Outcome, { kind: "valid" }>;

export interface Written {
  readonly entry: Valid;
  readonly debtId: number;
  readonly inserted: boolean;
}

export const writeDebts = async (
  trx: DbTransaction,
  publicIds: Ids,
  signer: DebtorLinkSigner,
  companyId: number,
  now: Date,
  valid: ReadonlyArray<Valid>,
  importId: string | null,
): Promise<Written[]> => {
  if (valid.length === 0) return [];
  const debtorIds = await upsertDebtorsByReference(
    trx,
    companyId,
    now,
    valid.flatMap((entry) => (entry.debtor === undefined ? [] : [entry.debtor])),
  );
  const ids = await allocateDebtIds(trx, valid.length);
  const rows = valid.map((entry, position) => ({
    ...entry.row,
    id: ids[position]!,
    debtor_id: entry.row.debtor_reference === null ? null : (debtorIds.get(entry.row.debtor_reference) ?? null),
    import_id: importId,
  }));
  const inserted = await insertDebts(trx, rows);
  await enrollDebts(trx, {
    companyId,
    debtIds: rows.flatMap((row) => (inserted.has(row.id) && row.timeline_id !== null ? [row.id] : [])),
    now,
    restart: false,
  });
  await recordDebtEvents(
    trx,
    publicIds,
    signer,
    companyId,
    "debt.created",
    rows.flatMap((row) => (inserted.has(row.id) ? [row.id] : [])),
    now,
  );
  return rows.map((row, position) => ({ entry: valid[position]!, debtId: row.id, inserted: inserted.has(row.id) }));
};
