/**
 * Applies a reconciliation plan to the database with a fixed number of
 * set-based statements, whatever the snapshot's size: create debts, update
 * debts, end plans, insert plans with installments, record payments. The
 * SQL reproduces `Reconciliation.applyPlan`. The caller holds the snapshot
 * and campaign locks (load-snapshot.ts) and runs this inside the transaction
 * that marks the snapshot completed; the debts' update checks that none
 * changed since they were read (update-debts.ts).
 */
import { DebtStatus, Money, type Reconciliation } from "@dc/domain";
import type { Kysely } from "kysely";
import type { Database } from "../../schema.ts";
import { type StatementQueue, statementQueue } from "../../statement-queue.ts";
import type { PlanReplacement } from "../webhooks/event-data/payment-data.ts";
import { insertSnapshotDebts, type SnapshotDebt } from "./insert-debts.ts";
import type { CampaignDebts, DebtContact } from "./load-current-debts.ts";
import { type BalancePaymentRecord, type InstallmentPaymentRecord, recordSnapshotPayments } from "./record-payments.ts";
import { endActivePlans, insertSnapshotPlans, installmentKey, type NewPlan, type PlanEnding } from "./replace-plans.ts";
import { type DebtChange, updateSnapshotDebts } from "./update-debts.ts";

export interface ApplyContext {
  readonly companyId: number;
  readonly campaignId: number;
  readonly creditorId: number;
  readonly timelineId: number;
  readonly snapshotId: number;
  readonly integrationClientPk: number | null;
  readonly now: Date;
}

/** Contact fields a row gives for a matched debt; `null` keeps the debt's value. */
export interface ContactRefresh extends DebtContact {
  readonly debtId: number;
}

/**
 * What the apply wrote, for the metrics log and the webhook events. Every
 * debt the update wrote is in exactly one of `updatedIds` and `settledIds`.
 */
export interface AppliedPlan {
  /** Ids of the created debts, in `plan.creations` order. */
  readonly createdIds: ReadonlyArray<number>;
  /** Debts written by the update (balance, status, settlement or contact changes). */
  readonly debtsUpdated: number;
  /** Existing debts the update wrote that it did not settle (balance, status or contact changes). */
  readonly updatedIds: ReadonlyArray<number>;
  /**
   * Debts the update paid off (status moved to `paid`): omitted debts
   * settled, and matched debts whose row brought the balance to zero.
   */
  readonly settledIds: ReadonlyArray<number>;
  readonly paymentsRecorded: number;
  /** Every payment row written (installments first). */
  readonly paymentIds: ReadonlyArray<string>;
  /**
   * Each active plan replaced or cancelled, or set on a debt that had none:
   * the plan's replacements in plan order (created debts included), then the
   * plans cancelled by settlements.
   */
  readonly planReplacements: ReadonlyArray<PlanReplacement>;
  /** Milliseconds per statement, for the worker's metrics log. */
  readonly statementMs: Readonly<
    Record<"insertDebts" | "updateDebts" | "endPlans" | "insertPlans" | "recordPayments", number>
  >;
}

type Target = Reconciliation.PlanTarget;
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const sumBy = <T>(
  items: ReadonlyArray<T>,
  key: (item: T) => string,
  amount: (item: T) => number,
): Map<string, number> => {
  const sums = new Map<string, number>();
  for (const item of items) sums.set(key(item), (sums.get(key(item)) ?? 0) + amount(item));
  return sums;
};

const targetKey = (target: Target): string => ("debtId" in target ? `d${target.debtId}` : `c${target.creationIndex}`);

/**
 * Final states of the debts the plan or the contact refreshes change;
 * unchanged debts are left out. Throws `DebtStatus.IllegalTransition` when a
 * debt's final status is not one the transition table allows from its
 * current one: the planner plans no such move, and none is written.
 */
const debtChanges = (
  current: CampaignDebts,
  plan: Reconciliation.ReconciliationPlan,
  contacts: ReadonlyArray<ContactRefresh>,
): Array<DebtChange> => {
  const next = new Map<number, Mutable<DebtContact> & { balanceMinor: number; status: DebtStatus.Status }>();
  const byId = new Map(current.debts.map((debt) => [debt.id, debt]));
  const entry = (id: number) => {
    let state = next.get(id);
    if (state === undefined) {
      const debt = byId.get(id);
      const contact = current.contacts.get(id);
      if (debt === undefined || contact === undefined) throw new Error(`the plan names debt ${id}, not loaded`);
      state = { balanceMinor: debt.balanceMinor, status: debt.status, ...contact };
      next.set(id, state);
    }
    return state;
  };
  for (const change of plan.balanceChanges) entry(change.debtId).balanceMinor = change.toMinor;
  for (const change of plan.statusChanges) entry(change.debtId).status = change.to;
  for (const settlement of plan.settlements)
    Object.assign(entry(settlement.debtId), { balanceMinor: 0, status: settlement.toStatus });
  for (const refresh of contacts) {
    const state = entry(refresh.debtId);
    state.firstname = refresh.firstname ?? state.firstname;
    state.lastname = refresh.lastname ?? state.lastname;
    state.email = refresh.email ?? state.email;
    state.phone = refresh.phone ?? state.phone;
  }
  const changes: Array<DebtChange> = [];
  for (const [id, state] of next) {
    const debt = byId.get(id);
    const contact = current.contacts.get(id);
    const same =
      debt !== undefined &&
      contact !== undefined &&
      debt.balanceMinor === state.balanceMinor &&
      debt.status === state.status &&
      contact.firstname === state.firstname &&
      contact.lastname === state.lastname &&
      contact.email === state.email &&
      contact.phone === state.phone;
    if (!same && debt !== undefined) {
      if (state.status !== debt.status && !DebtStatus.canTransition(debt.status, state.status)) {
        throw new DebtStatus.IllegalTransition({ debtId: id, from: debt.status, to: state.status });
      }
      // A contact field is sent only when it changes (a snapshot never clears one, docs/decisions/0355).
      const changed = (field: keyof DebtContact) => (state[field] === contact?.[field] ? null : state[field]);
      changes.push({
        id,
        expectedBalanceMinor: debt.balanceMinor,
        expectedStatus: debt.status,
        balanceMinor: state.balanceMinor,
        status: state.status,
        firstname: changed("firstname"),
        lastname: changed("lastname"),
        email: changed("email"),
        phone: changed("phone"),
      });
    }
  }
  return changes;
};

const earliestDate = (plan: Reconciliation.PlanReplacement["plan"]): string =>
  plan.installments.reduce(
    (min, item) => (item.paymentDate < min ? item.paymentDate : min),
    plan.installments[0]?.paymentDate ?? "",
  );

/**
 * Applies `plan` (computed from `current`) and records its payments.
 * `contacts` refresh matched debts' contact fields in the same update.
 * Installment `paidAt` texts must be timestamps PostgreSQL reads exactly.
 * On a failure, every statement handed over has settled before this rejects
 * (with the earliest statement's error), so none runs after the rollback.
 */
export const applyReconciliationPlan = async (
  trx: Kysely<Database>,
  context: ApplyContext,
  current: CampaignDebts,
  plan: Reconciliation.ReconciliationPlan,
  contacts: ReadonlyArray<ContactRefresh> = [],
): Promise<AppliedPlan> => {
  const statementMs = { insertDebts: 0, updateDebts: 0, endPlans: 0, insertPlans: 0, recordPayments: 0 };
  const statements = statementQueue(statementMs);
  try {
    return await applyStatements(trx, context, current, plan, contacts, statements, statementMs);
  } catch (error) {
    throw (await statements.firstFailure()) ?? error;
  }
};

/** The body of `applyReconciliationPlan`: its statements go through `statements`. */
const applyStatements = async (
  trx: Kysely<Database>,
  context: ApplyContext,
  current: CampaignDebts,
  plan: Reconciliation.ReconciliationPlan,
  contacts: ReadonlyArray<ContactRefresh>,
  statements: StatementQueue,
  statementMs: AppliedPlan["statementMs"],
): Promise<AppliedPlan> => {
  const { companyId, campaignId, now } = context;
  const paidAtCreation = sumBy(
    plan.paymentsFromInstallments,
    (p) => targetKey(p.target),
    (p) => p.amountMinor,
  );
  // A created debt's amount includes what its plan already shows as paid, so its payments explain its balance.
  const creations: Array<SnapshotDebt> = plan.creations.map(({ row }, creationIndex) => {
    const amountMinor = row.remainingMinor + (paidAtCreation.get(targetKey({ creationIndex })) ?? 0);
    return {
      internalId: row.internalId,
      invoiceReference: row.invoiceReference,
      amountMinor,
      balanceMinor: row.remainingMinor,
      currency: row.currency,
      amountText: Money.format(amountMinor, row.currency),
      firstname: row.firstname,
      lastname: row.lastname,
      email: row.email,
      phone: row.phone,
    };
  });
  const creationContext = {
    companyId,
    campaignId,
    creditorId: context.creditorId,
    timelineId: context.timelineId,
    status: DebtStatus.initial,
    now,
  };
  // The debts' insert, the plans' endings and the debts' update do not
  // depend on one another. They are handed to the connection in that order
  // without waiting (Kysely runs a transaction's statements one after the
  // other): the update's changes and arrays, the longest to build, are built
  // while the server runs the first two. Each timing includes the wait for
  // the statements before it.
  const inserting = statements.run("insertDebts", () => insertSnapshotDebts(trx, creationContext, creations));
  await new Promise((resolve) => setImmediate(resolve)); // the insert is on the wire
  const activePlanOf = new Map(current.debts.map((debt) => [debt.id, debt.activePlan]));
  const endings: Array<PlanEnding> = [];
  for (const replacement of plan.planReplacements) {
    if ("debtId" in replacement.target && (activePlanOf.get(replacement.target.debtId) ?? null) !== null) {
      const status = replacement.plan.status === "active" ? "replaced" : "cancelled";
      endings.push({ debtId: replacement.target.debtId, status });
    }
  }
  for (const settlement of plan.settlements) {
    if (settlement.cancelsPlan) endings.push({ debtId: settlement.debtId, status: "cancelled" });
  }
  const ending = statements.run("endPlans", () => endActivePlans(trx, { companyId, now }, endings));
  const changes = debtChanges(current, plan, contacts);
  const updating = statements.run("updateDebts", () =>
    updateSnapshotDebts(trx, { companyId, campaignId, now }, changes),
  );
  // The plans' insert needs the created ids and the ended plans, not the
  // update: it is queued behind the update while the update runs, and the
  // balance payments are built meanwhile.
  const [createdIds, endedPlanOf] = await Promise.all([inserting, ending]);
  const debtIdOf = (target: Target): number => {
    const id = "debtId" in target ? target.debtId : createdIds[target.creationIndex];
    if (id === undefined) throw new Error(`the plan names creation ${targetKey(target)}, not created`);
    return id;
  };

  const newPlans: Array<NewPlan> = plan.planReplacements
    .filter((replacement) => replacement.plan.status === "active")
    .map(({ target, plan: incoming }) => ({
      debtId: debtIdOf(target),
      externalReference: incoming.externalReference,
      startDate: earliestDate(incoming),
      installments: incoming.installments,
    }));
  const insertingPlans = statements.run("insertPlans", () => insertSnapshotPlans(trx, { companyId, now }, newPlans));

  const currencyOf = new Map(current.debts.map((debt) => [debt.id, debt.currency]));
  plan.creations.forEach(({ row }, i) => currencyOf.set(createdIds[i] ?? -1, row.currency));
  const currency = (debtId: number): string => currencyOf.get(debtId) ?? "";
  const balancePayments: Array<BalancePaymentRecord> = [
    ...plan.balanceChanges.map((change) => ({
      debtId: change.debtId,
      kind: "balance_delta" as const,
      currency: currency(change.debtId),
      directMinor: change.directPaymentMinor,
      installmentMinor: change.installmentPaymentsMinor,
    })),
    ...plan.settlements
      .filter((settlement) => settlement.paymentDeltaMinor !== 0)
      .map((settlement) => ({
        debtId: settlement.debtId,
        kind: "settlement" as const,
        currency: currency(settlement.debtId),
        directMinor: settlement.paymentDeltaMinor,
        installmentMinor: 0,
      })),
  ];
  await updating;
  const { planIds, installmentIds } = await insertingPlans;
  const planReplacements: Array<PlanReplacement> = [
    ...plan.planReplacements.map(({ target, plan: incoming }) => {
      const debtId = debtIdOf(target);
      return {
        debtId,
        planId: incoming.status === "active" ? (planIds.get(debtId) ?? null) : null,
        replacedPlanId: endedPlanOf.get(debtId) ?? null,
      };
    }),
    ...plan.settlements
      .filter((settlement) => settlement.cancelsPlan)
      .map(({ debtId }) => ({ debtId, planId: null, replacedPlanId: endedPlanOf.get(debtId) ?? null })),
  ];
  const installmentPayments: Array<InstallmentPaymentRecord> = plan.paymentsFromInstallments.map((payment) => {
    const debtId = debtIdOf(payment.target);
    return {
      debtId,
      installmentId: installmentIds.get(installmentKey(debtId, payment.installmentExternalReference)) ?? null,
      externalPaymentId: payment.externalPaymentId,
      amountMinor: payment.amountMinor,
      currency: currency(debtId),
      paidAt: payment.paidAt,
    };
  });
  // The caller marks the followups that led to these payments (markTriggeringFollowups).
  const recorded = await statements.run("recordPayments", () =>
    recordSnapshotPayments(
      trx,
      { companyId, snapshotId: context.snapshotId, integrationClientPk: context.integrationClientPk, now },
      installmentPayments,
      balancePayments,
    ),
  );
  const settled = (change: DebtChange): boolean =>
    change.status === DebtStatus.paid && change.expectedStatus !== DebtStatus.paid;
  return {
    createdIds,
    debtsUpdated: changes.length,
    updatedIds: changes.filter((change) => !settled(change)).map((change) => change.id),
    settledIds: changes.filter(settled).map((change) => change.id),
    paymentsRecorded: recorded.installments + recorded.balance,
    paymentIds: recorded.ids,
    planReplacements,
    statementMs,
  };
};
