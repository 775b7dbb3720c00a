/**
 * The debt-list counters (migrations 0002 and 0014, docs/decisions/0100 and
 * 0114): added over their shards they equal the debts, whichever connection
 * wrote them, and writers of one creditor on connections of different shards
 * do not wait for one another.
 */
import { type Kysely, sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { createDatabase } from "../src/connection.ts";
import type { Database } from "../src/schema.ts";
import { useTestDatabase } from "../../testing/index.ts";

const { url, db } = await useTestDatabase();

/** Single-connection pools whose server processes fall in `count` different counter shards. */
const connectionsOnDistinctShards = async (count: number): Promise<Array<Kysely<Database>>> => {
  const chosen = new Map<number, Kysely<Database>>();
  const spare: Array<Kysely<Database>> = [];
  while (chosen.size < count) {
    // Kept open however long a test idles: a new connection could fall in another shard.
    const connection = createDatabase({ connectionString: url, max: 1, idleTimeoutMillis: 0 });
    const { rows } = await sql<{ shard: number }>`select pg_backend_pid() % 16 as shard`.execute(connection);
    const shard = rows[0]?.shard ?? -1;
    if (chosen.has(shard)) spare.push(connection);
    else chosen.set(shard, connection);
  }
  await Promise.all(spare.map((connection) => connection.destroy()));
  return [...chosen.values()];
};

const connections = await connectionsOnDistinctShards(3);
afterAll(() => Promise.all(connections.map((connection) => connection.destroy())));

const newCreditor = async () => {
  const company = await db
    .insertInto("companies")
    .values({ name: "Counted" })
    .returning("id")
    .executeTakeFirstOrThrow();
  const creditor = await db
    .insertInto("creditors")
    .values({ company_id: company.id, name: "Counted creditor" })
    .returning("id")
    .executeTakeFirstOrThrow();
  return { companyId: company.id, creditorId: creditor.id };
};

type Scope = Awaited<ReturnType<typeof newCreditor>>;

const insertDebts = (writer: Kysely<Database>, scope: Scope, amounts: ReadonlyArray<number>, currency = "EUR") =>
  writer
    .insertInto("debts")
    .values(
      amounts.map((amount) => ({
        company_id: scope.companyId,
        creditor_id: scope.creditorId,
        amount_minor: amount,
        balance_minor: amount,
        currency,
        amount_text: (amount / 100).toFixed(2),
      })),
    )
    .returning("id")
    .execute();

/** The counters of the creditor, shards added together, without keys that add up to nothing. */
const counted = async (scope: Scope) =>
  (
    await sql<{ currency: string; status: string; debts: string; amount: string; balance: string }>`
      select currency, status, sum(debt_count)::text as debts, sum(amount_minor)::text as amount,
        sum(balance_minor)::text as balance
      from creditor_debt_stats where company_id = ${scope.companyId} and creditor_id = ${scope.creditorId}
      group by currency, status
      having sum(debt_count) <> 0 or sum(amount_minor) <> 0 or sum(balance_minor) <> 0
      order by currency, status`.execute(db)
  ).rows;

/** The same figures counted from the debts themselves. */
const actual = async (scope: Scope) =>
  (
    await sql<{ currency: string; status: string; debts: string; amount: string; balance: string }>`
      select currency, status, count(*)::text as debts, sum(amount_minor)::text as amount,
        sum(balance_minor)::text as balance
      from debts where company_id = ${scope.companyId} and creditor_id = ${scope.creditorId}
      group by currency, status order by currency, status`.execute(db)
  ).rows;

describe("debt-list counters", () => {
  it("add up over their shards to the debts, after inserts, updates and deletes through several connections", async () => {
    const scope = await newCreditor();
    const [first, second, third] = connections;
    if (first === undefined || second === undefined || third === undefined) throw new Error("no connections");
    const created = await insertDebts(first, scope, [1_000, 2_000, 3_000, 4_000]);
    await insertDebts(second, scope, [500, 700], "USD");
    const ids = created.map((row) => row.id);
    // Paid through another connection, then one of them deleted through a third.
    await second
      .updateTable("debts")
      .set({ balance_minor: 0, status: "status.default.paid" })
      .where("id", "in", ids.slice(0, 2))
      .execute();
    await third
      .deleteFrom("debts")
      .where("id", "=", ids[0] ?? 0)
      .execute();
    await third
      .updateTable("debts")
      .set({ balance_minor: 3_500 })
      .where("id", "=", ids[3] ?? 0)
      .execute();

    expect(await counted(scope)).toEqual(await actual(scope));
    expect(await counted(scope)).toEqual([
      { currency: "EUR", status: "status.default.paid", debts: "1", amount: "2000", balance: "0" },
      { currency: "EUR", status: "status.default.pending", debts: "2", amount: "7000", balance: "6500" },
      { currency: "USD", status: "status.default.pending", debts: "2", amount: "1200", balance: "1200" },
    ]);
    const { rows } = await sql<{ shards: number }>`
      select count(distinct shard)::int as shards from creditor_debt_stats
      where company_id = ${scope.companyId} and creditor_id = ${scope.creditorId}`.execute(db);
    expect(rows[0]?.shards).toBe(3);
  });

  it("let a second connection create debts of a creditor while a first one's creation is not yet committed", async () => {
    const scope = await newCreditor();
    const [first, second] = connections;
    if (first === undefined || second === undefined) throw new Error("no connections");
    await first.transaction().execute(async (trx) => {
      await insertDebts(trx, scope, [1_000]);
      // With one counter row per key this insert waited for the first transaction's commit.
      await sql`set lock_timeout = '2s'`.execute(second);
      try {
        await insertDebts(second, scope, [2_000]);
      } finally {
        await sql`reset lock_timeout`.execute(second);
      }
    });
    expect(await counted(scope)).toEqual([
      { currency: "EUR", status: "status.default.pending", debts: "2", amount: "3000", balance: "3000" },
    ]);
  });
});
