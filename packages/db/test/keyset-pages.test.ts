/**
 * A page after a key reads no more index entries deep in a list than at
 * its start (docs/decisions/0595), where a page by OFFSET reads every entry
 * it skips: counted in the transaction's own statistics of the table's
 * indexes (`pg_stat_get_xact_tuples_returned`), on the generic plans the
 * api's read pool uses (docs/decisions/0017). The count of `total`, the
 * same at any depth, is in every figure.
 */
import { type Kysely, sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { createDatabase } from "../src/connection.ts";
import { listDebtPage } from "../src/queries/debts/list-debts.ts";
import { listFollowups } from "../src/queries/followups/list-followups.ts";
import { type KeyValues, type PageRequest } from "../src/queries/keyset.ts";
import { listDebtPayments } from "../src/queries/payments/list-debt-payments.ts";
import type { Database } from "../src/schema.ts";
import { useTestDatabase } from "../../testing/index.ts";

const { url } = await useTestDatabase();
const db = createDatabase({ connectionString: url, max: 1, genericPlans: true });
afterAll(() => db.destroy());

const ROWS = 3_000;
const DEPTH = 2_500;
const LIMIT = 20;

const company = (await db.insertInto("companies").values({ name: "Deep" }).returning("id").executeTakeFirstOrThrow()).id;
const creditor = (await db.insertInto("creditors").values({ company_id: company, name: "Deep" }).returning("id").executeTakeFirstOrThrow()).id;
const debtor = (await db.insertInto("debtors").values({ company_id: company }).returning("id").executeTakeFirstOrThrow()).id;
await sql`
  insert into debts (company_id, creditor_id, debtor_id, amount_minor, balance_minor, currency, amount_text, created_at)
  select ${company}, ${creditor}, ${debtor}, 100, 100, 'EUR', '1.00', timestamptz '2026-01-01' + (g / 3) * interval '1 second'
  from generate_series(1, ${ROWS}) g`.execute(db);
const debt = (await db.selectFrom("debts").select("id").where("company_id", "=", company).orderBy("id").executeTakeFirstOrThrow()).id;
await sql`
  insert into followups (company_id, debt_id, type, created_at)
  select ${company}, ${debt}, 'email', timestamptz '2026-01-01' + (g / 3) * interval '1 second' from generate_series(1, ${ROWS}) g`.execute(db);
await sql`
  insert into payments (id, company_id, debt_id, provider, kind, amount_minor, currency, status, paid_at)
  select gen_random_uuid(), ${company}, ${debt}, 'internal', 'direct', 100, 'EUR', 'succeeded',
         timestamptz '2026-01-01' + (g / 3) * interval '1 second'
  from generate_series(1, ${ROWS}) g`.execute(db);
await sql`analyze`.execute(db);

/**
 * Index entries the indexes of `table` gave to the statements of `read`. The
 * counters include what this session read before and has not yet reported,
 * so they are read before and after.
 */
const entriesRead = (table: string, read: (trx: Kysely<Database>) => Promise<unknown>) =>
  db.transaction().execute(async (trx) => {
    const counter = async () => {
      const { rows } = await sql<{ n: string }>`
        select sum(pg_stat_get_xact_tuples_returned(indexrelid)) as n from pg_index where indrelid = ${table}::regclass`.execute(trx);
      return Number(rows[0]!.n);
    };
    const before = await counter();
    await read(trx);
    return (await counter()) - before;
  });

interface List {
  readonly name: string;
  readonly table: string;
  readonly read: (trx: Kysely<Database>, page: PageRequest) => Promise<{ readonly next: KeyValues | undefined; readonly rows: ReadonlyArray<unknown> }>;
}

const debtsOf = (scope: Parameters<typeof listDebtPage>[1]["scope"]) => (trx: Kysely<Database>, page: PageRequest) =>
  listDebtPage(trx, { companyId: company, scope, filters: {}, limit: page.limit, ...("after" in page ? { after: page.after } : { offset: (page.page - 1) * page.limit }) });

const lists: ReadonlyArray<List> = [
  { name: "a creditor's debts", table: "debts", read: debtsOf({ kind: "creditor", creditorId: creditor }) },
  { name: "the company's debts", table: "debts", read: debtsOf({ kind: "company" }) },
  { name: "a debtor's debts", table: "debts", read: debtsOf({ kind: "debtor", debtorId: debtor }) },
  { name: "a debt's followups", table: "followups", read: (trx, page) => listFollowups(trx, company, { debtId: debt }, page) },
  { name: "a debt's payments", table: "payments", read: (trx, page) => listDebtPayments(trx, { companyId: company, debtId: debt, groupId: null }, page) },
];

/** The key after which the page at `DEPTH` starts, found by walking there. */
const keyAtDepth = async (list: List): Promise<KeyValues> => {
  let after: KeyValues | undefined;
  for (let served = 0; served < DEPTH; served += 100) {
    const page = await list.read(db, { after, limit: 100 });
    after = page.next;
  }
  return after!;
};

describe("a page after a key", () => {
  it.each(lists)("reads no more index entries deep in $name than at its start; OFFSET reads the skipped ones", async (list) => {
    const deepKey = await keyAtDepth(list);
    const first = await entriesRead(list.table, (trx) => list.read(trx, { after: undefined, limit: LIMIT }));
    const deep = await entriesRead(list.table, async (trx) => expect((await list.read(trx, { after: deepKey, limit: LIMIT })).rows).toHaveLength(LIMIT));
    const byOffset = await entriesRead(list.table, (trx) => list.read(trx, { page: DEPTH / LIMIT + 1, limit: LIMIT }));
    expect(first).toBeGreaterThan(0);
    expect(deep).toBeLessThanOrEqual(first);
    expect(byOffset).toBeGreaterThanOrEqual(DEPTH);
  });
});
