/**
 * Debtors by the client's `debtor_reference`, set-based: one statement finds
 * or creates the debtor of every distinct reference (docs/decisions/0113).
 * An existing debtor is reused as it is; a new one takes the person fields of
 * the first debt that names it.
 */
import { type Kysely, sql } from "kysely";
import type { Database, PersonColumns } from "../../schema.ts";
import { compareKeys } from "../debts/insert-debts.ts";
import { personColumnTypes } from "../person-columns.ts";

/** A debtor to find or create: its reference and the person columns of the first debt naming it. */
export interface DebtorSeed extends Readonly<PersonColumns> {
  readonly debtor_reference: string;
}

const personColumns: ReadonlyArray<readonly [keyof DebtorSeed, string]> = [
  ["debtor_reference", "text"],
  ...personColumnTypes,
];

/**
 * Returns debtor_reference -> debtor id for every seed. Seeds are
 * de-duplicated by reference first (the first wins): one statement may not
 * touch a row twice.
 */
export const upsertDebtorsByReference = async (
  db: Kysely<Database>,
  companyId: number,
  now: Date,
  seeds: ReadonlyArray<DebtorSeed>,
): Promise<Map<string, number>> => {
  const firstByReference = new Map<string, DebtorSeed>();
  for (const seed of seeds)
    if (!firstByReference.has(seed.debtor_reference)) firstByReference.set(seed.debtor_reference, seed);
  // In one order in every transaction: concurrent batches naming the same new debtors in
  // different orders would otherwise each wait for the other's row, a deadlock.
  const distinct = [...firstByReference.values()].sort((a, b) => compareKeys(a.debtor_reference, b.debtor_reference));
  if (distinct.length === 0) return new Map();
  const names = sql.join(personColumns.map(([name]) => sql.ref(name)));
  const arrays = sql.join(
    personColumns.map(([name, type]) => sql`${distinct.map((seed) => seed[name])}::${sql.raw(type)}[]`),
  );
  // The no-op update makes RETURNING include the debtors that already existed.
  const { rows } = await sql<{ id: number; debtor_reference: string }>`
    insert into debtors (company_id, created_at, updated_at, ${names})
    select ${companyId}, ${now.toISOString()}::timestamptz, ${now.toISOString()}::timestamptz, * from unnest(${arrays})
    on conflict (company_id, debtor_reference) where debtor_reference is not null
    do update set debtor_reference = excluded.debtor_reference
    returning id, debtor_reference
  `.execute(db);
  return new Map(rows.map((row) => [row.debtor_reference, Number(row.id)]));
};
