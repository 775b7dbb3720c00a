/**
 * A debtor's plan proposal, validated by the company, becomes the debt's
 * active plan (source `portal`, docs/decisions/0680): the plan it replaces,
 * if any, ends as `replaced`, and the new plan is written with its
 * installments, with the statements a snapshot uses (replace-plans.ts), so a
 * plan is written one way whatever its source.
 */
import type { PaymentPlan } from "@dc/domain";
import type { DbTransaction } from "../executor.ts";
import { endActivePlans, insertSnapshotPlans } from "../snapshots/replace-plans.ts";

export interface StartedPlan {
  readonly planId: number;
  /** The plan that was active before; null when the debt had none. */
  readonly replacedPlanId: number | null;
}

/**
 * Starts `plan` (checked by `PaymentPlan.checkPlan`) on the locked debt
 * `debtId`, which `hadActivePlan` says whether to end first.
 */
export const startProposedPlan = async (
  trx: DbTransaction,
  scope: { readonly companyId: number; readonly now: Date },
  debtId: number,
  plan: PaymentPlan.MinorPlan,
  hadActivePlan: boolean,
): Promise<StartedPlan> => {
  const ended = hadActivePlan
    ? await endActivePlans(trx, scope, [{ debtId, status: "replaced" }])
    : new Map<number, number>();
  const installments = plan.installments.map((item) => ({
    ...item,
    status: "pending" as const,
    paidAt: null,
    externalPaymentId: null,
  }));
  const inserted = await insertSnapshotPlans(trx, { ...scope, source: "portal" }, [
    {
      debtId,
      externalReference: plan.externalReference,
      startDate: installments.map((item) => item.paymentDate).sort()[0]!,
      installments,
    },
  ]);
  return { planId: inserted.planIds.get(debtId)!, replacedPlanId: ended.get(debtId) ?? null };
};
