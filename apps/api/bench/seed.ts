/**
 * Benchmark data: by default (the resource-endpoint benchmark) 10 companies
 * with 10 creditors each; the first company has an eleventh creditor holding
 * 100,000 debts; the other 100 creditors hold 9,000 each, for 1,000,000 debts
 * in all. Other benchmarks pass a smaller `SeedShape`. Written with set-based SQL.
 */
import type { Database } from "@dc/db";
import { type Kysely, sql } from "kysely";
import { createCreditor } from "../src/admin/collection-setup.ts";
import { createTenant, type CreatedTenant } from "../src/admin/tenants.ts";
import type { DomainIds as Ids } from "@dc/db";

export interface Seeded {
  readonly tenants: ReadonlyArray<CreatedTenant>;
  /** Encrypted ids: a 9,000-debt creditor of company 0 and its 100,000-debt creditor. */
  readonly regularCreditorId: string;
  readonly bigCreditorId: string;
  readonly companyKey: number;
  readonly regularCreditorKey: number;
  readonly bigCreditorKey: number;
  readonly debts: number;
}

export const DEBTS_PER_CREDITOR = 9_000;
export const BIG_CREDITOR_DEBTS = 100_000;

/** How much to seed; the default is the resource-endpoint benchmark's million debts. */
export interface SeedShape {
  readonly companies: number;
  readonly creditorsPerCompany: number;
  readonly debtsPerCreditor: number;
  /** Debts of the first company's extra "big" creditor (0: the creditor exists, empty). */
  readonly bigCreditorDebts: number;
}

export const MILLION_DEBTS: SeedShape = { companies: 10, creditorsPerCompany: 10, debtsPerCreditor: DEBTS_PER_CREDITOR, bigCreditorDebts: BIG_CREDITOR_DEBTS };

export const seed = async (db: Kysely<Database>, ids: Ids, shape: SeedShape = MILLION_DEBTS): Promise<Seeded> => {
  const tenants: CreatedTenant[] = [];
  const creditorKeys: number[] = [];
  for (let company = 0; company < shape.companies; company++) {
    const tenant = await createTenant(db, ids, `Bench Company ${company}`);
    tenants.push(tenant);
    const companyKey = ids.decode("company", tenant.company_id)!;
    creditorKeys.push(ids.decode("creditor", tenant.creditor_id)!);
    for (let extra = 1; extra < shape.creditorsPerCompany; extra++) {
      creditorKeys.push((await createCreditor(db, { companyId: companyKey, name: `Creditor ${company}-${extra}` })).id);
    }
  }
  const companyZero = ids.decode("company", tenants[0]!.company_id)!;
  const big = await createCreditor(db, { companyId: companyZero, name: "Big creditor" });

  const started = Date.now();
  // One statement per creditor group: regular creditors, then the big one.
  await sql`
    insert into debts (company_id, creditor_id, status, amount_minor, balance_minor, currency, amount_text,
                       firstname, lastname, email, internal_id, created_at, import_date)
    select c.company_id, c.id,
           (array['status.default.pending','status.default.in_progress','status.default.paid','status.default.payment_plan'])[1 + g % 4],
           10000 + g % 90000, case when g % 4 = 2 then 0 else 10000 + g % 90000 end, 'EUR',
           to_char((10000 + g % 90000) / 100.0, 'FM999999990.00'),
           'First' || g, 'Last' || g, 'debtor' || g || '@example.com', 'BENCH-' || c.id || '-' || g,
           timestamptz '2026-01-01' + (g || ' minutes')::interval, now()
    from creditors c cross join generate_series(1, ${shape.debtsPerCreditor}) g
    where c.id in (${sql.join(creditorKeys)})`.execute(db);
  if (shape.bigCreditorDebts > 0) {
    await sql`
    insert into debts (company_id, creditor_id, status, amount_minor, balance_minor, currency, amount_text,
                       firstname, lastname, email, internal_id, created_at, import_date)
    select ${companyZero}, ${big.id},
           (array['status.default.pending','status.default.in_progress','status.default.paid','status.default.payment_plan'])[1 + g % 4],
           10000 + g % 90000, case when g % 4 = 2 then 0 else 10000 + g % 90000 end, 'EUR',
           to_char((10000 + g % 90000) / 100.0, 'FM999999990.00'),
           'First' || g, 'Last' || g, 'debtor' || g || '@example.com', 'BIG-' || g,
           timestamptz '2026-01-01' + (g || ' seconds')::interval, now()
    from generate_series(1, ${shape.bigCreditorDebts}) g`.execute(db);
  }
  await sql`vacuum analyze`.execute(db);
  const { count } = await db.selectFrom("debts").select((eb) => eb.fn.countAll<string>().as("count")).executeTakeFirstOrThrow();
  process.stdout.write(`seeded ${count} debts in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  return {
    tenants,
    regularCreditorId: tenants[0]!.creditor_id,
    bigCreditorId: ids.encode("creditor", big.id),
    companyKey: companyZero,
    regularCreditorKey: creditorKeys[0]!,
    bigCreditorKey: big.id,
    debts: Number(count),
  };
};
