/**
 * Property-style check of the SQL against the reference semantics: for a
 * handful of seeded random campaigns (a few hundred debts each, both
 * streams, plans with paid installments, several currencies, statuses set
 * behind the planner's back), the database after applying a snapshot equals
 * `Reconciliation.applyPlan(current, plan)`, the ledger balances, and the
 * same snapshot again changes nothing. Each snapshot is stored in one to
 * four chunks of random sizes, so the worker's batches (one per chunk, then
 * the omitted debts) are held to the plan of the whole snapshot at once.
 */
import { loadCampaignDebts } from "@dc/db";
import { useTestDatabase } from "@dc/testing";
import { Money, Reconciliation } from "@dc/domain";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { fixedClock } from "@dc/runtime";
import { applySnapshot } from "../src/snapshots/apply-snapshot.ts";
import { readSnapshotRows } from "../src/snapshots/read-rows.ts";
import {
  type CampaignFixture,
  fingerprint,
  insertCampaign,
  insertSnapshot,
  ledgerViolations,
  testIds,
  testLinks,
  snapshotKey,
} from "./snapshot-fixtures.ts";

const { db } = await useTestDatabase();
const now = new Date("2030-06-15T12:00:00.000Z");

/** mulberry32: a small seeded generator, so a failing case can be replayed from its seed. */
const generator = (seed: number) => {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  const chance = (p: number): boolean => next() < p;
  const pick = <T>(items: ReadonlyArray<T>): T => items[int(0, items.length - 1)] as T;
  return { int, chance, pick };
};
type Random = ReturnType<typeof generator>;

interface Identity {
  readonly key: string;
  readonly invoice: string;
  readonly currency: string;
}

const offsets = ["Z", "+02:00", "-05:30", "+00:00"];

/** Splits `total` (> 0) minor units into `parts` positive amounts. */
const split = (random: Random, total: number, parts: number): Array<number> => {
  const count = Math.max(1, Math.min(parts, total));
  const amounts: Array<number> = [];
  let left = total;
  for (let i = 0; i < count - 1; i++) {
    const amount = random.int(1, left - (count - 1 - i));
    amounts.push(amount);
    left -= amount;
  }
  amounts.push(left);
  return amounts;
};

const planFor = (random: Random, identity: Identity, remainingMinor: number, round: number) => {
  const amount = (minor: number) => Money.fromMinor(minor, identity.currency);
  if (random.chance(0.2)) {
    return {
      external_reference: `plan-${identity.key}-${round}`,
      status: "cancelled",
      installments: [
        {
          external_reference: "c-1",
          amount: amount(random.int(1, 5000)),
          payment_date: "2030-09-01",
          status: "pending",
        },
      ],
    };
  }
  const paid = Array.from({ length: random.int(0, 2) }, (_, i) => {
    // Payment ids repeat across rounds now and then, as a real integration restates past payments.
    const paymentId = `pay-${identity.key}-${random.chance(0.5) ? 0 : round}-${i}`;
    return {
      external_reference: `p-${i}`,
      amount: amount(random.int(1, 20_000)),
      payment_date: `2030-0${1 + i}-15`,
      status: "paid",
      paid_at: `2030-0${1 + i}-15T${String(random.int(0, 23)).padStart(2, "0")}:${String(random.int(0, 59)).padStart(2, "0")}:00${random.pick(offsets)}`,
      external_payment_id: paymentId,
    };
  });
  const pending = split(random, remainingMinor, random.int(1, 4)).map((minor, i) => ({
    external_reference: `n-${i}`,
    amount: amount(minor),
    payment_date: `2030-1${i % 3}-01`,
    status: "pending",
  }));
  return {
    external_reference: `plan-${identity.key}-${random.int(0, 1)}`,
    status: "active",
    installments: [...paid, ...pending],
  };
};

const rowFor = (random: Random, identity: Identity, stream: "account" | "invoice", round: number) => {
  const exponentScale = 10 ** Money.exponent(identity.currency);
  const remainingMinor = random.chance(0.1) ? 0 : random.int(1, 5_000 * exponentScale);
  const row: Record<string, unknown> = {
    ...(stream === "account"
      ? { internal_id: identity.key, invoice_reference: identity.invoice }
      : { invoice_reference: identity.key }),
    remaining_amount: Money.fromMinor(remainingMinor, identity.currency),
    currency: identity.currency,
  };
  if (random.chance(0.3)) row["firstname"] = random.pick(["Ada", "Bob", "Chloé", ""]);
  if (random.chance(0.2)) row["email"] = `${identity.key}@example.test`;
  if (random.chance(0.3)) row["phone"] = random.pick(["+33612345678", "+88123456789", "+442071234567", "+4490012345"]);
  if (remainingMinor > 0 && random.chance(0.3)) row["payment_plan"] = planFor(random, identity, remainingMinor, round);
  return row;
};

const shuffle = <T>(random: Random, items: Array<T>): Array<T> => {
  for (let i = items.length - 1; i > 0; i--) {
    const j = random.int(0, i);
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
};

const keyOf = (debt: Reconciliation.CurrentDebt): string => debt.internalId ?? debt.invoiceReference ?? "";
/** Debts keyed by identity (created ids are the database's), phone aside (contact refreshes are not modelled by applyPlan). */
const comparable = (debts: ReadonlyArray<Reconciliation.CurrentDebt>) =>
  debts
    .map((debt) => {
      const { id: _id, phone: _phone, ...rest } = debt;
      return { key: keyOf(debt), ...rest };
    })
    .sort((a, b) => a.key.localeCompare(b.key));

/** `rows` cut into one to four chunks of random sizes (a chunk may be empty), in order. */
const chunked = (random: Random, rows: ReadonlyArray<unknown>): Array<ReadonlyArray<unknown>> => {
  const cuts = Array.from({ length: random.int(0, 3) }, () => random.int(0, rows.length)).sort((a, b) => a - b);
  return [0, ...cuts].map((start, i) => rows.slice(start, [...cuts, rows.length][i]));
};

const applyAndCompare = async (random: Random, campaign: CampaignFixture, rows: ReadonlyArray<unknown>) => {
  const current = await loadCampaignDebts(db, campaign.companyId, campaign.campaignId);
  const read = readSnapshotRows([{ chunk_index: 0, body: JSON.stringify({ rows }) }], 1);
  expect(read.errors).toEqual([]);
  const planned = Reconciliation.plan(current.debts, read.rows, { allowExpensiveDestinations: false });
  if (Reconciliation.isRejected(planned)) throw new Error(`rejected: ${JSON.stringify(planned.errors.slice(0, 3))}`);
  const id = await insertSnapshot(db, campaign, chunked(random, rows));
  const outcome = await applySnapshot({ db, clock: fixedClock(now), ids: testIds, links: testLinks }, snapshotKey(id));
  expect(outcome).toMatchObject({ outcome: "completed", counts: planned.counts });
  const after = await loadCampaignDebts(db, campaign.companyId, campaign.campaignId);
  expect(comparable(after.debts)).toEqual(comparable(Reconciliation.applyPlan(current.debts, planned)));
  expect(await ledgerViolations(db, campaign.companyId)).toEqual([]);
  return planned;
};

const cases = [
  { seed: 1, stream: "account", debts: 300 },
  { seed: 2, stream: "invoice", debts: 300 },
  { seed: 3, stream: "account", debts: 400 },
  { seed: 4, stream: "invoice", debts: 250 },
  { seed: 5, stream: "account", debts: 350 },
] as const;

describe("applySnapshot against Reconciliation.applyPlan", () => {
  it.each(cases)("seed $seed: $debts debts, $stream stream", async ({ seed, stream, debts }) => {
    const random = generator(seed);
    const campaign = await insertCampaign(db);
    const identities: Array<Identity> = Array.from({ length: debts }, (_, i) => ({
      key: `s${seed}-${i}`,
      invoice: `inv-s${seed}-${i}`,
      currency: random.pick(["EUR", "EUR", "EUR", "JPY", "KWD"]),
    }));
    await applyAndCompare(
      random,
      campaign,
      identities.map((identity) => rowFor(random, identity, stream, 1)),
    );

    // Statuses the planner does not set: disputed, cancelled, in progress, on a plan.
    const { rows: ids } = await sql<{
      id: number;
    }>`select id from debts where campaign_id = ${campaign.campaignId} order by id`.execute(db);
    for (const { id } of ids) {
      if (!random.chance(0.2)) continue;
      const status = random.pick([
        "status.default.disputed",
        "status.default.cancelled",
        "status.default.in_progress",
        "status.default.payment_plan",
      ]);
      await sql`update debts set status = ${status} where id = ${id}`.execute(db);
    }

    const fresh = Array.from({ length: Math.round(debts / 10) }, (_, i) => ({
      key: `s${seed}-new-${i}`,
      invoice: `inv-s${seed}-new-${i}`,
      currency: "EUR",
    }));
    const kept = identities.filter(() => !random.chance(0.1));
    const second = shuffle(
      random,
      [...kept, ...fresh].map((identity) => rowFor(random, identity, stream, 2)),
    );
    const planned = await applyAndCompare(random, campaign, second);
    expect(planned.counts.rows).toBe(second.length);

    const before = await fingerprint(db, campaign.companyId);
    const again = await applyAndCompare(random, campaign, second);
    expect(again.counts).toMatchObject({ created: 0, updated: 0, settled: 0, plans_replaced: 0, payments: 0 });
    expect(again.counts.unchanged + again.counts.skipped_zero_balance).toBe(second.length);
    expect(await fingerprint(db, campaign.companyId)).toBe(before);
  });
});
