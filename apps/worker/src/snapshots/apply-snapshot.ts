/**
 * Applies one accepted snapshot to its campaign's debts, exactly once
 * (DESIGN 5): `pending -> processing` in a short transaction of its own,
 * then one transaction that locks the snapshot, re-validates its rows,
 * plans with `Reconciliation.plan` and applies the plan with set-based SQL,
 * ending `completed` or `failed` (`invalid_snapshot_row`, no debt changed).
 * Created debts are enrolled on their timeline and paid-off debts stop
 * theirs in that transaction (engine/snapshot-collection.ts). The webhook events of the outcome are recorded in that transaction
 * (snapshot-events.ts). A run that finds the snapshot `completed` or
 * `failed` changes and records nothing; a crash mid-way leaves the database
 * as it was.
 */
import {
  type AppliedPlan,
  applyReconciliationPlan,
  type CampaignDebts,
  type ContactRefresh,
  type Db,
  type DbTransaction,
  type EventIds,
  loadCampaignDebts,
  loadSnapshotChunks,
  lockCampaign,
  lockSnapshot,
  markSnapshotApplyFailed,
  markSnapshotCompleted,
  markSnapshotProcessing,
  recordSnapshotEvent,
  type SnapshotRowKey,
  snapshotFailure,
  statementQueue,
  withWholeCampaignJoins,
} from "@dc/db";
import type { DebtorLinkSigner } from "@dc/crypto";
import { DebtStatus, Reconciliation, type Snapshot } from "@dc/domain";
import type { Clock } from "@dc/runtime";
import { followSnapshotInCollection } from "../engine/snapshot-collection.ts";
import { isTransactionConflict, SnapshotUnprocessable } from "./errors.ts";
import { phaseTimer } from "./phase-timer.ts";
import { readSnapshotRows } from "./read-rows.ts";
import { recordAppliedSnapshotEvents } from "./snapshot-events.ts";

export interface ApplyDependencies {
  readonly db: Db;
  readonly clock: Clock;
  /** Encodes the ids of the webhook events' payloads (the api's codec: same `ID_ENCRYPTION_KEY`). */
  readonly ids: EventIds;
  /** Signs the debtor page links of the debt.* payloads (the api's `PUBLIC_BASE_URL`, docs/decisions/0670). */
  readonly links: DebtorLinkSigner;
}

interface SnapshotScope {
  readonly snapshotId: number;
  readonly companyId: number;
  readonly campaignId: number;
}

/** Milliseconds spent per phase of a completed run (logged for capacity planning). */
export interface PhaseTimings {
  /** Reading the chunks and the campaign's debts. */
  readonly readMs: number;
  /** `Snapshot.validateRows` and normalisation. */
  readonly validateMs: number;
  /** `Reconciliation.plan`. */
  readonly planMs: number;
  /** The plan's write statements and the snapshot's completion, webhook events included. */
  readonly writeMs: number;
  /** Building and recording the webhook events (part of `writeMs`). */
  readonly eventsMs: number;
  /** Enrolling the created debts and stopping the settled ones (part of `writeMs`). */
  readonly enrollMs: number;
  /** The write statements, one by one. */
  readonly statementMs: AppliedPlan["statementMs"];
}

/** What one run did. Only `completed` changed debts. */
export type ApplyOutcome =
  | (SnapshotScope & {
      readonly outcome: "completed";
      readonly counts: Reconciliation.Counts;
      readonly warningCount: number;
      readonly paymentsRecorded: number;
      /** Webhook events stored and deliveries created (0 when no endpoint subscribes). */
      readonly webhookEvents: number;
      readonly webhookDeliveries: number;
      readonly phases: PhaseTimings;
    })
  | (SnapshotScope & { readonly outcome: "failed"; readonly code: "invalid_snapshot_row"; readonly errorCount: number })
  /** Already `completed` or `failed` (a re-run), or not finalized (`uploading`): nothing was written. */
  | (SnapshotScope & { readonly outcome: "skipped"; readonly status: string })
  | { readonly outcome: "not_found"; readonly snapshotId: number };

/** Attempts of one run's transaction after a deadlock, a serialization failure or a debt changed under the plan. */
const TRANSACTION_ATTEMPTS = 3;

/**
 * Contact fields of each row matched to a debt the plan may touch (not
 * cancelled), matched as the planner matches (docs/decisions/0355).
 */
const contactRefreshes = (current: CampaignDebts, rows: ReadonlyArray<Snapshot.ValidRow>): Array<ContactRefresh> => {
  const byInternalId = new Map<string, Reconciliation.CurrentDebt>();
  const byInvoice = new Map<string, Reconciliation.CurrentDebt>();
  for (const debt of current.debts) {
    if (debt.internalId !== null && !byInternalId.has(debt.internalId)) byInternalId.set(debt.internalId, debt);
    if (debt.invoiceReference !== null && !byInvoice.has(debt.invoiceReference))
      byInvoice.set(debt.invoiceReference, debt);
  }
  const refreshes: Array<ContactRefresh> = [];
  for (const row of rows) {
    const debt = (row.identity.kind === "internal_id" ? byInternalId : byInvoice).get(row.identity.value);
    if (debt === undefined || debt.status === DebtStatus.cancelled) continue;
    if (row.firstname === null && row.lastname === null && row.email === null && row.phone === null) continue;
    refreshes.push({
      debtId: debt.id,
      firstname: row.firstname,
      lastname: row.lastname,
      email: row.email,
      phone: row.phone,
    });
  }
  return refreshes;
};

const invalidRows = (errors: ReadonlyArray<Snapshot.RowError>) =>
  snapshotFailure(
    "invalid_snapshot_row",
    `The snapshot has ${errors.length} invalid row error${errors.length === 1 ? "" : "s"}; no debt was changed.`,
    errors,
  );

/** The applying transaction; everything it writes commits together or not at all. */
const applyLocked = async (
  trx: DbTransaction,
  { ids, links }: Pick<ApplyDependencies, "ids" | "links">,
  key: SnapshotRowKey,
  now: Date,
): Promise<ApplyOutcome> => {
  const snapshotId = key.id;
  const snapshot = await lockSnapshot(trx, key);
  if (snapshot === undefined) return { outcome: "not_found", snapshotId };
  const scope: SnapshotScope = { snapshotId, companyId: snapshot.company_id, campaignId: snapshot.campaign_id };
  if (snapshot.status !== "pending" && snapshot.status !== "processing") {
    return { ...scope, outcome: "skipped", status: snapshot.status };
  }
  const campaign = await lockCampaign(trx, scope.companyId, scope.campaignId);
  if (campaign === undefined) throw new SnapshotUnprocessable({ message: `campaign ${scope.campaignId} not found` });
  const { timed, rounded } = phaseTimer(["read", "validate", "plan", "write", "events", "enroll"]);
  const campaignWork = await withWholeCampaignJoins(trx, async () => {
    // The debts are read while the rows are validated: PostgreSQL builds the
    // answer as JavaScript checks rows, instead of one waiting for the other.
    const statements = statementQueue();
    const { chunks, loading } = await timed("read", async () => {
      const chunks = await loadSnapshotChunks(trx, scope.companyId, snapshotId);
      const loading = statements.run("loadDebts", () => loadCampaignDebts(trx, scope.companyId, scope.campaignId));
      await new Promise((resolve) => setImmediate(resolve));
      return { chunks, loading };
    });
    const read = await timed("validate", async () => {
      try {
        return readSnapshotRows(chunks, snapshot.received_chunk_count);
      } catch (error) {
        throw (await statements.firstFailure()) ?? error;
      }
    });
    const current = await timed("read", () => loading);
    const result = await timed("plan", () =>
      Reconciliation.plan(current.debts, read.rows, {
        allowExpensiveDestinations: campaign.allow_expensive_destinations,
      }),
    );
    const errors = [...read.errors, ...(Reconciliation.isRejected(result) ? result.errors : [])].sort(
      (a, b) => a.row_index - b.row_index,
    );
    if (errors.length > 0 || Reconciliation.isRejected(result)) return { outcome: "rejected" as const, errors };
    const applied = await timed("write", () =>
      applyReconciliationPlan(
        trx,
        {
          ...scope,
          creditorId: campaign.creditor_id,
          timelineId: campaign.timeline_id,
          integrationClientPk: snapshot.integration_client_pk,
          now,
        },
        current,
        result,
        contactRefreshes(current, read.rows),
      ),
    );
    return { outcome: "applied" as const, result, applied };
  });
  if (campaignWork.outcome === "rejected") {
    const { errors } = campaignWork;
    await markSnapshotApplyFailed(trx, key, invalidRows(errors), now);
    await recordSnapshotEvent(trx, {
      companyId: scope.companyId,
      snapshotId,
      type: "snapshot.failed",
      occurredAt: now,
    });
    return { ...scope, outcome: "failed", code: "invalid_snapshot_row", errorCount: errors.length };
  }
  const { result, applied } = campaignWork;
  const recorded = await timed("write", async () => {
    await timed("enroll", () => followSnapshotInCollection(trx, scope.companyId, applied, now));
    await markSnapshotCompleted(trx, key, { counts: result.counts, warnings: result.warnings, now });
    return timed("events", () =>
      recordAppliedSnapshotEvents(trx, ids, links, { companyId: scope.companyId, snapshotId, now }, applied),
    );
  });
  const ms = rounded();
  return {
    ...scope,
    outcome: "completed",
    counts: result.counts,
    warningCount: result.warnings.length,
    paymentsRecorded: applied.paymentsRecorded,
    webhookEvents: recorded.events,
    webhookDeliveries: recorded.deliveries,
    phases: {
      readMs: ms.read,
      validateMs: ms.validate,
      planMs: ms.plan,
      writeMs: ms.write,
      eventsMs: ms.events,
      enrollMs: ms.enroll,
      statementMs: applied.statementMs,
    },
  };
};

/**
 * Applies the snapshot of company `key.companyId` with id `key.id`
 * (`not_found` when the company has none). Returns what happened; throws
 * when the database fails (the caller retries) or `SnapshotUnprocessable`
 * when the stored snapshot cannot be applied at all.
 *
 * @example
 * const outcome = await applySnapshot({ db, clock: systemClock, ids, links }, { companyId: 7, id: 42 });
 */
export const applySnapshot = async (
  { db, clock, ids, links }: ApplyDependencies,
  key: SnapshotRowKey,
): Promise<ApplyOutcome> => {
  const now = clock.now();
  await markSnapshotProcessing(db, key, now);
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute((trx) => applyLocked(trx, { ids, links }, key, now));
    } catch (error) {
      if (attempt >= TRANSACTION_ATTEMPTS || !isTransactionConflict(error)) throw error;
    }
  }
};
