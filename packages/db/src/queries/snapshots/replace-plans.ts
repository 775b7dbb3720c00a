/**
 * Payment-plan writes of a snapshot: ending active plans (replaced by a
 * row's plan, cancelled by a row, or cancelled by a settlement) in one
 * update, and inserting the new active plans with all their installments in
 * one statement (the plans' ids flow to the installments inside PostgreSQL).
 * Rows travel as one array parameter per column (array-literals.ts).
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../../schema.ts";
import { integerArray, textArray } from "../array-literals.ts";
import { ConcurrentDebtChange } from "./update-debts.ts";

interface Scope {
  readonly companyId: number;
  readonly now: Date;
  /** Where new plans come from: a snapshot row (the default) or a debtor's proposal the company validated. */
  readonly source?: "snapshot" | "portal";
}

/** The active plan of `debtId` ends with `status`. */
export interface PlanEnding {
  readonly debtId: number;
  readonly status: "replaced" | "cancelled";
}

/**
 * Ends the active plan of each debt (`ended_at` = now) and returns the ended
 * plan's id by debt id (for `payment_plan.replaced`). Throws
 * `ConcurrentDebtChange` when a debt has no active plan any more, so a plan
 * computed from a stale read is never half applied, and is planned again.
 */
export const endActivePlans = async (
  trx: Kysely<Database>,
  scope: Scope,
  endings: ReadonlyArray<PlanEnding>,
): Promise<Map<number, number>> => {
  if (endings.length === 0) return new Map();
  // Sent twice: to pair each debt with its ending, and as the index condition that bounds the plans read.
  const debtIds = integerArray(endings.map((e) => e.debtId));
  const { rows } = await sql<{ ended: ReadonlyArray<readonly [number, number]> | null }>`
    with ended as (
      update payment_plans p set status = v.status, ended_at = ${scope.now.toISOString()}::timestamptz
      from unnest(${debtIds}::int8[], ${textArray(endings.map((e) => e.status))}::text[])
        as v("debtId", status)
      where p.company_id = ${scope.companyId} and p.status = 'active' and p.debt_id = v."debtId"
        and p.debt_id = any (${debtIds}::int8[])
      returning p.debt_id, p.id
    )
    select json_agg(json_build_array(debt_id, id)) as ended from ended
  `.execute(trx);
  const ended = new Map((rows[0]?.ended ?? []).map(([debtId, planId]) => [debtId, planId]));
  const count = rows[0]?.ended?.length ?? 0;
  if (ended.size !== count) throw new Error(`ended ${count} active plans of ${ended.size} debts`);
  if (count !== endings.length) {
    // A plan ended (a debt deleted, a plan changed through the api) since the snapshot was planned.
    throw new ConcurrentDebtChange(`${endings.length - count} of ${endings.length} active plans changed since the snapshot was planned`);
  }
  return ended;
};

/** One installment of a new plan; `paidAt` is a timestamp text PostgreSQL reads exactly. */
export interface NewInstallment {
  readonly externalReference: string;
  readonly amountMinor: number;
  readonly paymentDate: string;
  readonly status: "pending" | "paid";
  readonly paidAt: string | null;
  readonly externalPaymentId: string | null;
}

/** A new active plan of a debt, from a snapshot row. */
export interface NewPlan {
  readonly debtId: number;
  readonly externalReference: string;
  /** The earliest installment date. */
  readonly startDate: string;
  readonly installments: ReadonlyArray<NewInstallment>;
}

/** Key of an inserted installment: its debt and its external reference (unique within a plan). */
export const installmentKey = (debtId: number, externalReference: string): string =>
  `${debtId}\u0000${externalReference}`;

export interface InsertedPlans {
  /** The new plan of each debt, by debt id. */
  readonly planIds: ReadonlyMap<number, number>;
  /** The new installments, by `installmentKey`. */
  readonly installmentIds: ReadonlyMap<string, number>;
}

/**
 * Inserts the plans (`active`, source `scope.source`) and their installments
 * (`position` is the index in the row's array) and returns the new plan ids
 * by debt and installment ids by `installmentKey`.
 */
export const insertSnapshotPlans = async (
  trx: Kysely<Database>,
  scope: Scope,
  plans: ReadonlyArray<NewPlan>,
): Promise<InsertedPlans> => {
  if (plans.length === 0) return { planIds: new Map(), installmentIds: new Map() };
  const items = plans.flatMap((plan) =>
    plan.installments.map((item, position) => ({ ...item, debtId: plan.debtId, position })),
  );
  const { rows } = await sql<{ kind: "plan" | "installment"; id: number; debt_id: number; external_reference: string }>`
    with plans as (
      insert into payment_plans (company_id, debt_id, external_reference, status, start_date, source, created_at)
      select ${scope.companyId}, p."debtId", p."externalReference", 'active', p."startDate", ${scope.source ?? "snapshot"},
        ${scope.now.toISOString()}::timestamptz
      from unnest(${integerArray(plans.map((p) => p.debtId))}::int8[],
        ${textArray(plans.map((p) => p.externalReference))}::text[], ${textArray(plans.map((p) => p.startDate))}::date[])
        as p("debtId", "externalReference", "startDate")
      returning id, debt_id
    ), items as (
      insert into installments (company_id, payment_plan_id, position, external_reference, amount_minor, payment_date,
        status, paid_at, external_payment_id)
      select ${scope.companyId}, plans.id, i.position, i."externalReference", i."amountMinor", i."paymentDate",
        i.status, i."paidAt", i."externalPaymentId"
      from unnest(${integerArray(items.map((i) => i.debtId))}::int8[], ${integerArray(items.map((i) => i.position))}::int4[],
        ${textArray(items.map((i) => i.externalReference))}::text[], ${integerArray(items.map((i) => i.amountMinor))}::int8[],
        ${textArray(items.map((i) => i.paymentDate))}::date[], ${textArray(items.map((i) => i.status))}::text[],
        ${textArray(items.map((i) => i.paidAt))}::timestamptz[], ${textArray(items.map((i) => i.externalPaymentId))}::text[])
        as i("debtId", position, "externalReference", "amountMinor", "paymentDate", status, "paidAt", "externalPaymentId")
      join plans on plans.debt_id = i."debtId"
      returning id, payment_plan_id, external_reference
    )
    select 'installment' as kind, items.id, plans.debt_id, items.external_reference
    from items join plans on plans.id = items.payment_plan_id
    union all
    select 'plan', plans.id, plans.debt_id, '' from plans
  `.execute(trx);
  const planIds = new Map<number, number>();
  const installmentIds = new Map<string, number>();
  for (const row of rows) {
    if (row.kind === "plan") planIds.set(row.debt_id, row.id);
    else installmentIds.set(installmentKey(row.debt_id, row.external_reference), row.id);
  }
  if (planIds.size !== plans.length) throw new Error(`expected ${plans.length} plans, inserted ${planIds.size}`);
  if (rows.length - planIds.size !== items.length) {
    throw new Error(`expected ${items.length} installments, inserted ${rows.length - planIds.size}`);
  }
  return { planIds, installmentIds };
};
