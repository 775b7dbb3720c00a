/**
 * The debt-list counters that the creditor read and the list totals report
 * (docs/decisions/0100, 0102, 0114) stay equal to the rows through snapshot
 * applies: creations in several currencies, balance changes up and down,
 * settlements of omitted debts, a paid debt reopened, and rows skipped for a
 * zero balance. Expected numbers are counted by plain SQL over `debts`.
 */
import { useTestDatabase } from "@dc/testing";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { fixedClock } from "@dc/runtime";
import { applySnapshot } from "../src/snapshots/apply-snapshot.ts";
import {
  accountRow as row,
  type CampaignFixture,
  insertCampaign,
  insertSnapshot,
  snapshotKey,
  testIds, testLinks,
} from "./snapshot-fixtures.ts";

const { db } = await useTestDatabase();
const now = new Date("2030-06-15T12:00:00.000Z");

const applyRows = async (campaign: CampaignFixture, rows: ReadonlyArray<unknown>) => {
  const id = await insertSnapshot(db, campaign, [rows]);
  expect(await applySnapshot({ db, clock: fixedClock(now), ids: testIds, links: testLinks }, snapshotKey(id))).toMatchObject({
    outcome: "completed",
  });
};

/** Per (currency, status): the counters summed over their shards, and the same from the rows. */
const countersAndRows = async (campaign: CampaignFixture) => {
  const { rows: counters } = await sql<{
    currency: string;
    status: string;
    n: string;
    amount: string;
    balance: string;
  }>`
    select currency, status, sum(debt_count)::text as n, sum(amount_minor)::text as amount, sum(balance_minor)::text as balance
    from creditor_debt_stats where company_id = ${campaign.companyId} and creditor_id = ${campaign.creditorId}
    group by currency, status having sum(debt_count) <> 0 or sum(amount_minor) <> 0 or sum(balance_minor) <> 0
    order by currency, status`.execute(db);
  const { rows: real } = await sql<{ currency: string; status: string; n: string; amount: string; balance: string }>`
    select currency, status, count(*)::text as n, sum(amount_minor)::text as amount, sum(balance_minor)::text as balance
    from debts where company_id = ${campaign.companyId} and creditor_id = ${campaign.creditorId}
    group by currency, status order by currency, status`.execute(db);
  return { counters, real };
};

const expectCountersMatchRows = async (campaign: CampaignFixture) => {
  const { counters, real } = await countersAndRows(campaign);
  expect(counters).toEqual(real);
};

describe("snapshot applies keep the counters equal to the rows", () => {
  it("through creations, balance changes, settlements, reopenings and zero-balance rows", async () => {
    const campaign = await insertCampaign(db);
    await applyRows(campaign, [
      row("a", 100.1),
      row("b", 0.2),
      row("c", 1000, { currency: "JPY" }),
      row("d", 1.005, { currency: "KWD" }),
      row("e", 0),
      row("f", 55.55, { currency: "USD" }),
    ]);
    await expectCountersMatchRows(campaign);
    // a goes down, b is paid, c goes up, d is omitted (settled), f stays, g is new.
    await applyRows(campaign, [
      row("a", 50.05),
      row("b", 0),
      row("c", 1500, { currency: "JPY" }),
      row("f", 55.55, { currency: "USD" }),
      row("g", 9.99),
    ]);
    await expectCountersMatchRows(campaign);
    // b reopens, g is omitted, a is unchanged.
    await applyRows(campaign, [
      row("a", 50.05),
      row("b", 12.34),
      row("c", 1500, { currency: "JPY" }),
      row("f", 1, { currency: "USD" }),
    ]);
    await expectCountersMatchRows(campaign);
    const { real } = await countersAndRows(campaign);
    expect(real.reduce((sum, item) => sum + Number(item.n), 0)).toBe(6);
  });
});
