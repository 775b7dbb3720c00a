/**
 * Gives the three scoped lists whose index did not end with the list's whole
 * order an index that does (docs/decisions/0595), so a page after a cursor is
 * a range scan of `(company_id, <scope>, <sort>, id)` starting at the
 * cursor's key, whatever its depth:
 *
 * - a debtor's debts, newest first: `debts (company_id, debtor_id,
 *   created_at desc, id desc)`, partial where `debtor_id` is set, as before;
 * - a debt's followups, newest first: `followups (company_id, debt_id,
 *   created_at desc, id desc)`;
 * - a debt's payments, newest first: `payments (company_id, debt_id,
 *   paid_at, id)`, read backwards.
 *
 * Each replaces the index of the same name, whose columns it starts with, so
 * every lookup the old one served (a debtor's delete following its debts, a
 * debt's followups and payments) it serves too. `create index` in this
 * transaction takes a SHARE lock on each table until it commits: writes to
 * it wait, reads go on (docs/operations.md, Upgrades).
 */
import { type Kysely, sql } from "kysely";

interface Replacement {
  readonly name: string;
  readonly table: string;
  readonly columns: string;
  readonly before: string;
  readonly where?: string;
}

const replacements: ReadonlyArray<Replacement> = [
  {
    name: "debts_debtor_idx",
    table: "debts",
    columns: "company_id, debtor_id, created_at desc, id desc",
    before: "company_id, debtor_id",
    where: "debtor_id is not null",
  },
  {
    name: "followups_debt_idx",
    table: "followups",
    columns: "company_id, debt_id, created_at desc, id desc",
    before: "company_id, debt_id, created_at desc",
  },
  {
    name: "payments_debt_idx",
    table: "payments",
    columns: "company_id, debt_id, paid_at, id",
    before: "company_id, debt_id, paid_at",
  },
];

const replace = async (db: Kysely<unknown>, index: Replacement, columns: string): Promise<void> => {
  const where = index.where === undefined ? sql`` : sql` where ${sql.raw(index.where)}`;
  await sql`create index ${sql.id(`${index.name}_next`)} on ${sql.id(index.table)} (${sql.raw(columns)})${where}`.execute(db);
  await sql`drop index ${sql.id(index.name)}`.execute(db);
  await sql`alter index ${sql.id(`${index.name}_next`)} rename to ${sql.id(index.name)}`.execute(db);
};

export const up = async (db: Kysely<unknown>): Promise<void> => {
  for (const index of replacements) await replace(db, index, index.columns);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  for (const index of replacements) await replace(db, index, index.before);
};
