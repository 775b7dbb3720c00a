/**
 * `data` of `payment.recorded` (the payment as GET /debts/{id}/payments
 * returns it, contract 2.7) and of `payment_plan.replaced` (the debt, its new
 * active plan with its installments, and the plan it replaced).
 */
import { Money } from "@dc/domain";
import type { Kysely } from "kysely";
import type { Database } from "../../../schema.ts";
import { type EventIds, isoOffset, isoOffsetOrNull } from "./wire.ts";

/** The `data` of each payment of `paymentIds` (UUIDs, of `companyId`), keyed by payment id. */
export const paymentEventData = async (
  db: Kysely<Database>,
  ids: EventIds,
  companyId: number,
  paymentIds: ReadonlyArray<string>,
): Promise<Map<string, Record<string, unknown>>> => {
  if (paymentIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("payments")
    .select(["id", "debt_id", "installment_id", "external_payment_id", "provider", "amount_minor", "currency", "status", "paid_at"])
    .where("company_id", "=", companyId)
    .where("id", "in", [...paymentIds])
    .execute();
  return new Map(
    rows.map((row) => [
      row.id,
      {
        id: row.id,
        debt_id: ids.encode("debt", row.debt_id),
        installment_id: row.installment_id === null ? null : ids.encode("installment", row.installment_id),
        external_payment_id: row.external_payment_id,
        provider: row.provider,
        amount: Money.fromMinor(row.amount_minor, row.currency),
        currency: row.currency,
        status: row.status,
        paid_at: isoOffset(row.paid_at),
      },
    ]),
  );
};

export interface PlanReplacement {
  readonly debtId: number;
  /** The new active plan; null when the replacement cancelled the plan without a new one. */
  readonly planId: number | null;
  /** The plan it replaced; null when the debt had none. */
  readonly replacedPlanId: number | null;
}

/** The `data` of `payment_plan.replaced` for each replacement, in the same order (two statements in all). */
export const paymentPlanReplacedEventData = async (
  db: Kysely<Database>,
  ids: EventIds,
  companyId: number,
  replacements: ReadonlyArray<PlanReplacement>,
): Promise<ReadonlyArray<Record<string, unknown>>> => {
  const planIds = replacements.flatMap((replacement) => (replacement.planId === null ? [] : [replacement.planId]));
  const plans =
    planIds.length === 0
      ? []
      : await db
          .selectFrom("payment_plans as p")
          .innerJoin("debts as d", (join) => join.onRef("d.id", "=", "p.debt_id").onRef("d.company_id", "=", "p.company_id"))
          .select(["p.id", "p.debt_id", "p.external_reference", "p.status", "p.start_date", "p.source", "d.currency"])
          .where("p.company_id", "=", companyId)
          .where("p.id", "in", planIds)
          .execute();
  const installments =
    planIds.length === 0
      ? []
      : await db
          .selectFrom("installments")
          .selectAll()
          .where("company_id", "=", companyId)
          .where("payment_plan_id", "in", planIds)
          .orderBy("payment_plan_id")
          .orderBy("position")
          .execute();
  const planJson = new Map(
    plans.map((plan) => [
      plan.id,
      {
        id: ids.encode("payment_plan", plan.id),
        debt_id: ids.encode("debt", plan.debt_id),
        external_reference: plan.external_reference,
        status: plan.status,
        start_date: plan.start_date,
        source: plan.source,
        currency: plan.currency,
        installments: installments
          .filter((installment) => installment.payment_plan_id === plan.id)
          .map((installment) => ({
            id: ids.encode("installment", installment.id),
            external_reference: installment.external_reference,
            amount: Money.fromMinor(installment.amount_minor, plan.currency),
            payment_date: installment.payment_date,
            status: installment.status,
            paid_at: isoOffsetOrNull(installment.paid_at),
            external_payment_id: installment.external_payment_id,
          })),
      },
    ]),
  );
  return replacements.map((replacement) => ({
    debt_id: ids.encode("debt", replacement.debtId),
    payment_plan: replacement.planId === null ? null : (planJson.get(replacement.planId) ?? null),
    replaced_payment_plan_id: replacement.replacedPlanId === null ? null : ids.encode("payment_plan", replacement.replacedPlanId),
  }));
};
