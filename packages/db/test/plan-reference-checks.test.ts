/**
 * A plan's debt, an installment's plan and a payment's installment are
 * foreign keys within the row's company (migration 0023, decision 0367).
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

const insertDebt = (companyId: number, creditorId: number) =>
  one(sql`
    insert into debts (company_id, creditor_id, amount_minor, balance_minor, currency, amount_text)
    values (${companyId}, ${creditorId}, 1000, 1000, 'EUR', '10.00 EUR') returning id`);

const insertPlan = (on: Kysely<Database>, companyId: number, debtId: number, status = "active") =>
  returnedId(
    on,
    sql`insert into payment_plans (company_id, debt_id, status, source)
      values (${companyId}, ${debtId}, ${status}, 'api') returning id`,
  );

const insertInstallments = (
  on: Kysely<Database>,
  companyId: number,
  planId: number,
  positions: ReadonlyArray<number>,
) =>
  sql`
    insert into installments (company_id, payment_plan_id, position, amount_minor, payment_date, status)
    select ${companyId}, ${planId}, p, 500, '2030-01-01', 'pending' from unnest(${positions}::int4[]) as p`.execute(on);

const insertPayment = (on: Kysely<Database>, companyId: number, debtId: number, installmentId: number | null) =>
  sql`
    insert into payments (company_id, debt_id, installment_id, provider, kind, amount_minor, currency, status, paid_at)
    values (${companyId}, ${debtId}, ${installmentId}::int8, 'api', 'installment', 500, 'EUR', 'succeeded', now())`.execute(
    on,
  );

/** A company with a debt, an active plan of two installments and a payment of the first. */
const tenant = async () => {
  const companyId = await one(sql`insert into companies (name) values ('Plans') returning id`);
  const creditorId = await one(sql`insert into creditors (company_id, name) values (${companyId}, 'C') returning id`);
  const debtId = await insertDebt(companyId, creditorId);
  const planId = await insertPlan(db, companyId, debtId);
  await insertInstallments(db, companyId, planId, [1, 2]);
  const installmentId = await one(sql`
    select id from installments where payment_plan_id = ${planId} and position = 1`);
  await insertPayment(db, companyId, debtId, installmentId);
  return { companyId, creditorId, debtId, planId, installmentId };
};

const count = async (query: ReturnType<typeof sql<{ n: number }>>) => (await query.execute(db)).rows[0]?.n;

describe("plan, installment and payment references", () => {
  it("write a plan, its installments and their payments when every parent is the row's company's", async () => {
    const t = await tenant();
    expect(await count(sql`select count(*)::int4 as n from installments where payment_plan_id = ${t.planId}`)).toBe(2);
    expect(await count(sql`select count(*)::int4 as n from payments where installment_id = ${t.installmentId}`)).toBe(
      1,
    );
  });

  it("refuse a plan naming a debt that does not exist or belongs to another company, writing nothing", async () => {
    const t = await tenant();
    const other = await tenant();
    expect(await sqlState(insertPlan(db, t.companyId, t.debtId + 1_000_000, "cancelled"))).toBe("23503");
    expect(await sqlState(insertPlan(db, t.companyId, other.debtId, "cancelled"))).toBe("23503");
    expect(
      await sqlState(
        sql`
        insert into payment_plans (company_id, debt_id, status, source)
        values (${t.companyId}, ${t.debtId}, 'cancelled', 'api'), (${t.companyId}, ${other.debtId}, 'cancelled', 'api')`.execute(
          db,
        ),
      ),
    ).toBe("23503");
    expect(await count(sql`select count(*)::int4 as n from payment_plans where company_id = ${t.companyId}`)).toBe(1);
  });

  it("refuse installments naming another company's plan, and payments naming another company's installment", async () => {
    const t = await tenant();
    const other = await tenant();
    expect(await sqlState(insertInstallments(db, t.companyId, other.planId, [3, 4]))).toBe("23503");
    expect(await sqlState(insertInstallments(db, t.companyId, t.planId + 1_000_000, [1]))).toBe("23503");
    expect(await sqlState(insertPayment(db, t.companyId, t.debtId, other.installmentId))).toBe("23503");
    expect(await sqlState(insertPayment(db, t.companyId, t.debtId, t.installmentId + 1_000_000))).toBe("23503");
    expect(await count(sql`select count(*)::int4 as n from installments where company_id = ${t.companyId}`)).toBe(2);
    expect(await count(sql`select count(*)::int4 as n from payments where company_id = ${t.companyId}`)).toBe(1);
  });

  it("check an update only when it changes a reference", async () => {
    const t = await tenant();
    const other = await tenant();
    expect(
      await sqlState(
        sql`update payment_plans set debt_id = ${other.debtId}, status = 'replaced' where id = ${t.planId}`.execute(db),
      ),
    ).toBe("23503");
    expect(
      await sqlState(
        sql`update installments set payment_plan_id = ${other.planId}, position = position + 10
        where payment_plan_id = ${t.planId}`.execute(db),
      ),
    ).toBe("23503");
    expect(
      await sqlState(
        sql`update payments set installment_id = ${other.installmentId} where company_id = ${t.companyId}`.execute(db),
      ),
    ).toBe("23503");
    const secondDebt = await insertDebt(t.companyId, t.creditorId);
    await sql`update payment_plans set debt_id = ${secondDebt}, status = 'replaced' where id = ${t.planId}`.execute(db);
    await sql`update installments set status = 'paid' where payment_plan_id = ${t.planId}`.execute(db);
    expect(await count(sql`select count(*)::int4 as n from payment_plans where debt_id = ${secondDebt}`)).toBe(1);
  });

  it("delete a debt's plans and installments with it, keeping its payments with no installment, and touch no other debt's", async () => {
    const deleted = await tenant();
    const kept = await tenant();
    await sql`delete from debts where id = ${deleted.debtId}`.execute(db);
    expect(
      await count(sql`select count(*)::int4 as n from payment_plans where company_id = ${deleted.companyId}`),
    ).toBe(0);
    expect(await count(sql`select count(*)::int4 as n from installments where company_id = ${deleted.companyId}`)).toBe(
      0,
    );
    const payments = await sql<{ installment_id: number | null }>`
      select installment_id from payments where company_id = ${deleted.companyId}`.execute(db);
    expect(payments.rows).toEqual([{ installment_id: null }]);
    expect(await count(sql`select count(*)::int4 as n from installments where company_id = ${kept.companyId}`)).toBe(2);
    expect(
      await count(sql`select count(*)::int4 as n from payments where installment_id = ${kept.installmentId}`),
    ).toBe(1);
  });

  it("delete a company's plans and installments, through its debts, with the company", async () => {
    const t = await tenant();
    await sql`delete from companies where id = ${t.companyId}`.execute(db);
    expect(await count(sql`select count(*)::int4 as n from payment_plans where company_id = ${t.companyId}`)).toBe(0);
    expect(await count(sql`select count(*)::int4 as n from installments where company_id = ${t.companyId}`)).toBe(0);
    expect(await count(sql`select count(*)::int4 as n from payments where company_id = ${t.companyId}`)).toBe(0);
  });

  it("refuse to change the id of a debt, a plan or an installment", async () => {
    const t = await tenant();
    expect(await sqlState(sql`update debts set id = default where id = ${t.debtId}`.execute(db))).toBe("23503");
    expect(await sqlState(sql`update payment_plans set id = default where id = ${t.planId}`.execute(db))).toBe("23503");
    expect(await sqlState(sql`update installments set id = default where id = ${t.installmentId}`.execute(db))).toBe(
      "23503",
    );
  });

  it("keep a debt from being deleted while a transaction that wrote a plan for it is open", async () => {
    const t = await tenant();
    // The debt is locked `for key share` by the writer, as a foreign-key check would lock it.
    const state = await stateOfRemovalDuringWrite(
      url,
      (trx) => insertPlan(trx, t.companyId, t.debtId, "cancelled"),
      (trx) => sql`delete from debts where id = ${t.debtId}`.execute(trx),
    );
    expect(state).toBe("55P03");
    expect(await count(sql`select count(*)::int4 as n from payment_plans where debt_id = ${t.debtId}`)).toBe(2);
  });
});
