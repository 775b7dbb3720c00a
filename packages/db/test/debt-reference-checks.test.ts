/**
 * The company, creditor, campaign and timeline of debts are foreign keys
 * (migration 0023, decision 0364); the creditor, campaign and timeline are
 * named within the debt's company.
 */
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { createDatabase } from "../src/connection.ts";
import { useTestDatabase } from "../../testing/index.ts";
import { returnedId, sqlState, stateOfRemovalDuringWrite } from "./support/reference-checks.ts";

const { url } = await useTestDatabase();
const db = createDatabase({ connectionString: url, max: 4 });
afterAll(() => db.destroy());

const one = (query: ReturnType<typeof sql<{ id: number }>>) => returnedId(db, query);

/** A company with a creditor, a timeline and a campaign. */
const tenant = async () => {
  const companyId = await one(sql`insert into companies (name) values ('Debts') returning id`);
  const creditorId = await one(sql`insert into creditors (company_id, name) values (${companyId}, 'C') returning id`);
  const timelineId = await one(sql`insert into timelines (company_id, name) values (${companyId}, 'T') returning id`);
  const campaignId = await one(sql`
    insert into campaigns (company_id, api_reference, name, creditor_id, timeline_id)
    values (${companyId}, ${`campaign-${companyId}`}, 'K', ${creditorId}, ${timelineId}) returning id`);
  return { companyId, creditorId, timelineId, campaignId };
};

type Parents = Awaited<ReturnType<typeof tenant>>;

/** Inserts `count` debts naming `parents` in one statement. */
const insertDebts = (parents: Parents, count = 1) => sql`
  insert into debts (company_id, creditor_id, campaign_id, timeline_id, amount_minor, balance_minor, currency, amount_text)
  select ${parents.companyId}, ${parents.creditorId}, ${parents.campaignId}, ${parents.timelineId}, 100, 100, 'EUR', '1.00 EUR'
  from generate_series(1, ${count})`.execute(db);

const debtCount = async (companyId: number) =>
  (await sql<{ n: number }>`select count(*)::int4 as n from debts where company_id = ${companyId}`.execute(db)).rows[0]?.n;


describe("debt references", () => {
  it("accept debts naming their own company's creditor, campaign and timeline, or no campaign and timeline", async () => {
    const t = await tenant();
    await insertDebts(t, 300);
    await sql`
      insert into debts (company_id, creditor_id, amount_minor, balance_minor, currency, amount_text)
      values (${t.companyId}, ${t.creditorId}, 1, 1, 'EUR', '0.01 EUR')`.execute(db);
    expect(await debtCount(t.companyId)).toBe(301);
  });

  it("refuse a whole statement naming a missing parent or another company's, writing nothing", async () => {
    const t = await tenant();
    const other = await tenant();
    const missing = 1_000_000_000;
    for (const wrong of [
      { ...t, companyId: missing },
      { ...t, creditorId: missing },
      { ...t, campaignId: missing },
      { ...t, timelineId: missing },
      { ...t, creditorId: other.creditorId },
      { ...t, campaignId: other.campaignId },
      { ...t, timelineId: other.timelineId },
    ]) {
      expect(await sqlState(insertDebts(wrong, 3))).toBe("23503");
    }
    expect(await debtCount(t.companyId)).toBe(0);
  });

  it("check an update only where it changes a parent, and refuse one to another company's parent", async () => {
    const t = await tenant();
    const other = await tenant();
    await insertDebts(t, 2);
    await sql`update debts set balance_minor = 50, status = 'paid' where company_id = ${t.companyId}`.execute(db);
    const secondCreditor = await one(sql`insert into creditors (company_id, name) values (${t.companyId}, 'C2') returning id`);
    await sql`update debts set creditor_id = ${secondCreditor} where company_id = ${t.companyId}`.execute(db);
    for (const [column, value] of [
      ["creditor_id", other.creditorId],
      ["campaign_id", other.campaignId],
      ["timeline_id", other.timelineId],
      ["company_id", other.companyId],
    ] as const) {
      expect(
        await sqlState(sql`update debts set ${sql.ref(column)} = ${value} where company_id = ${t.companyId}`.execute(db)),
      ).toBe("23503");
    }
    const creditors = await sql<{ creditor_id: number }>`
      select distinct creditor_id from debts where company_id = ${t.companyId}`.execute(db);
    expect(creditors.rows).toEqual([{ creditor_id: secondCreditor }]);
  });

  it("refuse to delete a creditor, campaign or timeline that debts name, and allow it once they are gone", async () => {
    const t = await tenant();
    // Parents named by debts only (no other table refers to them).
    const creditorId = await one(sql`insert into creditors (company_id, name) values (${t.companyId}, 'Only debts') returning id`);
    const timelineId = await one(sql`insert into timelines (company_id, name) values (${t.companyId}, 'Only debts') returning id`);
    const campaignId = await one(sql`
      insert into campaigns (company_id, api_reference, name, creditor_id, timeline_id)
      values (${t.companyId}, ${`only-debts-${t.companyId}`}, 'Only debts', ${t.creditorId}, ${t.timelineId}) returning id`);
    await insertDebts({ ...t, creditorId, timelineId, campaignId }, 2);
    for (const [table, id] of [
      ["campaigns", campaignId],
      ["timelines", timelineId],
      ["creditors", creditorId],
    ] as const) {
      expect(await sqlState(sql`delete from ${sql.table(table)} where id = ${id}`.execute(db))).toBe("23503");
    }
    await sql`delete from debts where company_id = ${t.companyId}`.execute(db);
    await sql`delete from campaigns where id = ${campaignId}`.execute(db);
    await sql`delete from timelines where id = ${timelineId}`.execute(db);
  });

  it("delete a company with its debts, and only its debts", async () => {
    const deleted = await tenant();
    const kept = await tenant();
    await insertDebts(deleted, 3);
    await insertDebts(kept, 2);
    await sql`delete from companies where id = ${deleted.companyId}`.execute(db);
    expect(await debtCount(deleted.companyId)).toBe(0);
    expect(await debtCount(kept.companyId)).toBe(2);
  });

  it("refuse to change the id of a creditor, campaign or timeline that debts name", async () => {
    const t = await tenant();
    await insertDebts(t);
    for (const table of ["creditors", "campaigns", "timelines"]) {
      const id = table === "creditors" ? t.creditorId : table === "campaigns" ? t.campaignId : t.timelineId;
      expect(await sqlState(sql`update ${sql.table(table)} set id = default where id = ${id}`.execute(db))).toBe("23503");
    }
  });

  it("keep a creditor from being deleted while a transaction that created its debts is open", async () => {
    const t = await tenant();
    const state = await stateOfRemovalDuringWrite(
      url,
      (trx) =>
        sql`
          insert into debts (company_id, creditor_id, amount_minor, balance_minor, currency, amount_text)
          values (${t.companyId}, ${t.creditorId}, 1, 1, 'EUR', '0.01 EUR')`.execute(trx),
      (trx) => sql`delete from creditors where id = ${t.creditorId}`.execute(trx),
    );
    expect(state).toBe("55P03");
    expect(await debtCount(t.companyId)).toBe(1);
  });
});
