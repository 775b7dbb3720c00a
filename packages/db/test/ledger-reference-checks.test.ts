/**
 * The company and integration references of payments, payment plans and
 * installments are foreign keys (migration 0023, decision 0361).
 */
import { type Kysely, sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { createDatabase } from "../src/connection.ts";
import type { Database } from "../src/schema.ts";
import { useTestDatabase } from "../../testing/index.ts";
import { returnedId, sqlState, stateOfRemovalDuringWrite } from "./support/reference-checks.ts";

const { url } = await useTestDatabase();
const db = createDatabase({ connectionString: url, max: 4 });
afterAll(() => db.destroy());

const one = (query: ReturnType<typeof sql<{ id: number }>>) => returnedId(db, query);

/** A company with a client, a debt and an active plan with one installment. */
const tenant = async () => {
  const companyId = await one(sql`insert into companies (name) values ('Ledger') returning id`);
  const clientPk = await one(sql`
    insert into oauth_clients (company_id, client_id, name, secret_hash, allowed_scopes)
    values (${companyId}, ${`client-${companyId}`}, 'Books', 'x', '{}') returning id`);
  const creditorId = await one(sql`insert into creditors (company_id, name) values (${companyId}, 'C') returning id`);
  const debtId = await one(sql`
    insert into debts (company_id, creditor_id, amount_minor, balance_minor, currency, amount_text)
    values (${companyId}, ${creditorId}, 1000, 1000, 'EUR', '10.00 EUR') returning id`);
  const planId = await one(sql`
    insert into payment_plans (company_id, debt_id, status, source) values (${companyId}, ${debtId}, 'active', 'api') returning id`);
  const installmentId = await one(sql`
    insert into installments (company_id, payment_plan_id, position, amount_minor, payment_date, status)
    values (${companyId}, ${planId}, 1, 1000, '2030-01-01', 'pending') returning id`);
  return { companyId, clientPk, debtId, planId, installmentId };
};

/** Inserts `count` payments in one statement. */
const insertPayments = (
  on: Kysely<Database>,
  rows: { companyId: number; debtId: number; clientPk: number | null },
  count = 1,
) => sql`
  insert into payments (id, company_id, debt_id, integration_client_pk, provider, kind, amount_minor, currency, status, paid_at)
  select gen_random_uuid(), ${rows.companyId}, ${rows.debtId}, ${rows.clientPk}::int8, 'api', 'direct', 100, 'EUR', 'succeeded', now()
  from generate_series(1, ${count})`.execute(on);

const paymentCount = async (companyId: number) =>
  Number((await sql<{ n: string }>`select count(*) as n from payments where company_id = ${companyId}`.execute(db)).rows[0]?.n);


describe("ledger references", () => {
  it("write payments, plans and installments of an existing company and client", async () => {
    const t = await tenant();
    await insertPayments(db, t, 500);
    expect(await paymentCount(t.companyId)).toBe(500);
  });

  it("refuse a whole statement when one row names a company that does not exist, writing nothing", async () => {
    const t = await tenant();
    const error = await sqlState(sql`
      insert into payments (id, company_id, debt_id, provider, kind, amount_minor, currency, status, paid_at)
      values (gen_random_uuid(), ${t.companyId}, ${t.debtId}, 'api', 'direct', 1, 'EUR', 'succeeded', now()),
             (gen_random_uuid(), ${t.companyId + 100_000}, ${t.debtId}, 'api', 'direct', 1, 'EUR', 'succeeded', now())`.execute(db));
    expect(error).toBe("23503");
    expect(await paymentCount(t.companyId)).toBe(0);
    expect(await sqlState(sql`update payments set company_id = ${t.companyId + 100_000}`.execute(db))).toBe("23503");
    expect(
      await sqlState(sql`
        insert into payment_plans (company_id, debt_id, status, source)
        values (${t.companyId + 100_000}, ${t.debtId}, 'cancelled', 'api')`.execute(db)),
    ).toBe("23503");
    expect(
      await sqlState(sql`
        insert into installments (company_id, payment_plan_id, position, amount_minor, payment_date, status)
        values (${t.companyId + 100_000}, ${t.planId}, 2, 5, '2030-01-01', 'pending')`.execute(db)),
    ).toBe("23503");
    expect(await sqlState(sql`update installments set company_id = ${t.companyId + 100_000}`.execute(db))).toBe("23503");
  });

  it("refuse a payment naming an oauth client that does not exist, and accept none", async () => {
    const t = await tenant();
    expect(await sqlState(insertPayments(db, { ...t, clientPk: t.clientPk + 100_000 }, 3))).toBe("23503");
    await insertPayments(db, { ...t, clientPk: null }, 2);
    expect(await paymentCount(t.companyId)).toBe(2);
  });

  it("delete a company's payments with the company, and only its payments", async () => {
    const deleted = await tenant();
    const kept = await tenant();
    await insertPayments(db, deleted, 3);
    await insertPayments(db, kept, 2);
    await sql`delete from companies where id = ${deleted.companyId}`.execute(db);
    expect(await paymentCount(deleted.companyId)).toBe(0);
    expect(await paymentCount(kept.companyId)).toBe(2);
    const plans = await sql<{ n: number }>`
      select count(*)::int4 as n from payment_plans where company_id = ${deleted.companyId}`.execute(db);
    expect(plans.rows[0]?.n).toBe(0);
  });

  it("clear the integration of payments when their oauth client is deleted, keeping the payments", async () => {
    const t = await tenant();
    await insertPayments(db, t, 2);
    await sql`delete from oauth_clients where id = ${t.clientPk}`.execute(db);
    const { rows } = await sql<{ integration_client_pk: number | null }>`
      select integration_client_pk from payments where company_id = ${t.companyId}`.execute(db);
    expect(rows).toEqual([{ integration_client_pk: null }, { integration_client_pk: null }]);
  });

  it("refuse to change the id of a company or a client that payments name", async () => {
    const t = await tenant();
    await insertPayments(db, t);
    expect(await sqlState(sql`update companies set id = default where id = ${t.companyId}`.execute(db))).toBe("23503");
    expect(await sqlState(sql`update oauth_clients set id = default where id = ${t.clientPk}`.execute(db))).toBe("23503");
  });

  it("keep a company from being deleted while a transaction that wrote its payments is open", async () => {
    const t = await tenant();
    // The company row is locked `for key share` by the writer, as a foreign-key check would lock it.
    const state = await stateOfRemovalDuringWrite(
      url,
      (trx) => insertPayments(trx, t, 5),
      (trx) => sql`delete from companies where id = ${t.companyId}`.execute(trx),
    );
    expect(state).toBe("55P03");
    expect(await paymentCount(t.companyId)).toBe(5);
  });
});
