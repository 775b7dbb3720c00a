/**
 * Applies one accepted snapshot to its campaign's debts, exactly once
 * (DESIGN 5): `pending -> processing` in a short transaction of its own,
 * then one transaction that locks the snapshot and streams it in bounded
 * batches (docs/decisions/0691), so a million-row snapshot runs in the
 * memory of one chunk:
 *
 * 1. the rules across rows, checked by the database over every stored row
 *    (`findCrossRowErrors`);
 * 2. the debts the rows name, read once into tables of the transaction
 *    (`stageMatchedDebts`), by chunk;
 * 3. each stored chunk in turn (at most `Snapshot.MAX_ROWS` rows):
 *    re-validated, planned by `Reconciliation.planRows` against its staged
 *    debts (read while the rows are validated), and written set-based with
 *    its enrollments, its webhook events and the followups its payments
 *    followed marked;
 * 4. the debts no row named, read through a cursor in batches of as many,
 *    settled by `Reconciliation.planSettlements` and written the same way;
 * 5. `completed` with the counts summed over the batches, then
 *    `snapshot.completed`.
 *
 * The batches compute what `Reconciliation.plan` computes over the whole
 * snapshot: once no two rows share an identity or an invoice reference
 * (step 1), a batch's writes change no debt another batch's rows name.
 * Any invalid row rolls the batches back to a savepoint taken before the
 * first; the remaining chunks are still checked, so the failure
 * (`invalid_snapshot_row`, no debt changed) counts every error, as one
 * pass over the whole snapshot would. A run that finds the snapshot
 * `completed` or `failed` changes and records nothing; a crash mid-way
 * leaves the database as it was.
 */
import {
  type AppliedPlan,
  applyReconciliationPlan,
  beginSnapshotBatches,
  type CampaignDebts,
  closeOmittedDebts,
  type ContactRefresh,
  countSnapshotChunks,
  type Db,
  type DbTransaction,
  type EventIds,
  fetchOmittedDebts,
  findCrossRowErrors,
  loadChunkDebts,
  loadSnapshotChunk,
  lockCampaign,
  lockSnapshot,
  MAX_REPORTED,
  markTriggeringFollowups,
  markSnapshotApplyFailed,
  markSnapshotCompleted,
  markSnapshotProcessing,
  openOmittedDebts,
  recordSnapshotEvent,
  type SnapshotRowKey,
  snapshotFailure,
  statementQueue,
  stageMatchedDebts,
  subscribedWebhookEventTypes,
  undoSnapshotBatches,
  withWholeCampaignJoins,
} from "@dc/db";
import type { DebtorLinkSigner } from "@dc/crypto";
import { DebtStatus, Reconciliation, Snapshot } from "@dc/domain";
import type { Clock } from "@dc/runtime";
import { followSnapshotInCollection } from "../engine/snapshot-collection.ts";
import { isTransactionConflict, SnapshotUnprocessable } from "./errors.ts";
import { phaseTimer } from "./phase-timer.ts";
import { readChunkRows } from "./read-rows.ts";
import { recordAppliedBatchEvents } from "./snapshot-events.ts";

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

/** Omitted debts settled per batch: as many as one chunk's rows. */
const OMITTED_PER_BATCH = Snapshot.MAX_ROWS;

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

/**
 * The first `MAX_REPORTED` entries (by row index, in the order they were
 * found within a row) of lists that may each be long, and how many there
 * were in all: what a failure or a completion reports, in bounded memory.
 */
const firstByRow = <T extends { readonly row_index: number }>() => {
  let kept: Array<T> = [];
  let count = 0;
  return {
    /** Adds `entries` (the first of `total` found, when given). */
    add: (entries: ReadonlyArray<T>, total: number = entries.length): void => {
      count += total;
      if (entries.length === 0) return;
      const merged = [...kept, ...entries.slice(0, MAX_REPORTED)];
      kept = merged.sort((a, b) => a.row_index - b.row_index).slice(0, MAX_REPORTED);
    },
    get kept(): ReadonlyArray<T> {
      return kept;
    },
    get count(): number {
      return count;
    },
  };
};

const sumStatementMs = (a: AppliedPlan["statementMs"], b: AppliedPlan["statementMs"]): AppliedPlan["statementMs"] => ({
  insertDebts: a.insertDebts + b.insertDebts,
  updateDebts: a.updateDebts + b.updateDebts,
  endPlans: a.endPlans + b.endPlans,
  insertPlans: a.insertPlans + b.insertPlans,
  recordPayments: a.recordPayments + b.recordPayments,
});

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
  const chunkCount = await countSnapshotChunks(trx, scope.companyId, snapshotId);
  if (chunkCount !== snapshot.received_chunk_count) {
    throw new SnapshotUnprocessable({
      message: `expected ${snapshot.received_chunk_count} stored chunks, found ${chunkCount}`,
    });
  }
  const { timed, rounded } = phaseTimer(["read", "validate", "plan", "write", "events", "enroll"]);
  const config = { allowExpensiveDestinations: campaign.allow_expensive_destinations };
  const campaignScope = { companyId: scope.companyId, campaignId: scope.campaignId };
  const applyContext = {
    ...scope,
    creditorId: campaign.creditor_id,
    timelineId: campaign.timeline_id,
    integrationClientPk: snapshot.integration_client_pk,
    now,
  };
  const wanted = await subscribedWebhookEventTypes(trx, scope.companyId);
  const errors = firstByRow<Snapshot.RowError>();
  const warnings = firstByRow<Reconciliation.Warning>();
  let counts = Reconciliation.noCounts;
  let paymentsRecorded = 0;
  let webhookEvents = 0;
  let webhookDeliveries = 0;
  let statementMs: AppliedPlan["statementMs"] = {
    insertDebts: 0,
    updateDebts: 0,
    endPlans: 0,
    insertPlans: 0,
    recordPayments: 0,
  };

  /** Writes one batch's plan with its enrollments and events. */
  const write = async (
    current: CampaignDebts,
    plan: Reconciliation.ReconciliationPlan,
    contacts: ReadonlyArray<ContactRefresh>,
  ): Promise<void> => {
    await timed("write", async () => {
      // Hash joins whatever the statistics say of a campaign loaded moments ago (docs/decisions/0363).
      const applied = await withWholeCampaignJoins(trx, () =>
        applyReconciliationPlan(trx, applyContext, current, plan, contacts),
      );
      // It looks each payment's clicks and calls up by key, under its own planner settings (docs/decisions/0692).
      await markTriggeringFollowups(trx, scope.companyId, applied.paymentIds);
      await timed("enroll", () => followSnapshotInCollection(trx, scope.companyId, applied, now));
      const recorded = await timed("events", () =>
        recordAppliedBatchEvents(trx, ids, links, { companyId: scope.companyId, now }, applied, wanted),
      );
      paymentsRecorded += applied.paymentsRecorded;
      webhookEvents += recorded.events;
      webhookDeliveries += recorded.deliveries;
      statementMs = sumStatementMs(statementMs, applied.statementMs);
    });
    counts = Reconciliation.addCounts(counts, plan.counts);
    warnings.add(plan.warnings);
  };

  const acrossRows = await timed("validate", () => findCrossRowErrors(trx, key));
  errors.add(acrossRows.errors, acrossRows.count);
  await timed("read", () => stageMatchedDebts(trx, { ...campaignScope, snapshotId }));
  let writing = errors.count === 0;
  if (writing) await beginSnapshotBatches(trx);
  /** Stops writing at the first invalid row: what the batches wrote is undone, the rest is only checked. */
  const stopWriting = async (): Promise<void> => {
    if (!writing) return;
    writing = false;
    await undoSnapshotBatches(trx);
  };

  // Each chunk's body is read while the chunk before it is planned and
  // written, and the debts it names while its rows are validated: the
  // connection works while JavaScript does.
  const reads = statementQueue();
  try {
    let nextChunk = reads.run("readChunk", () => loadSnapshotChunk(trx, scope.companyId, snapshotId, 0));
    let firstRowIndex = 0;
    for (let chunkIndex = 0; chunkIndex < chunkCount; chunkIndex++) {
      const chunk = await timed("read", () => nextChunk);
      if (chunk === undefined) throw new SnapshotUnprocessable({ message: `chunk ${chunkIndex} is missing` });
      const loading = reads.run("loadDebts", () => loadChunkDebts(trx, chunkIndex));
      if (chunkIndex + 1 < chunkCount) {
        const following = chunkIndex + 1;
        nextChunk = reads.run("readChunk", () => loadSnapshotChunk(trx, scope.companyId, snapshotId, following));
      }
      await new Promise((resolve) => setImmediate(resolve)); // the reads are on the wire
      const read = await timed("validate", () => readChunkRows(chunk, firstRowIndex));
      firstRowIndex += read.rowCount;
      const current = await timed("read", () => loading);
      const planned = await timed("plan", () => Reconciliation.planRows(current.debts, read.rows, config));
      const rejected = Reconciliation.isRejected(planned) ? planned.errors : [];
      errors.add([...read.errors, ...rejected].sort((a, b) => a.row_index - b.row_index));
      if (read.errors.length > 0 || Reconciliation.isRejected(planned)) await stopWriting();
      if (writing && !Reconciliation.isRejected(planned)) {
        await write(current, planned, contactRefreshes(current, read.rows));
      }
    }
  } catch (error) {
    throw (await reads.firstFailure()) ?? error;
  }

  if (!writing) {
    const failure = snapshotFailure(
      "invalid_snapshot_row",
      `The snapshot has ${errors.count} invalid row error${errors.count === 1 ? "" : "s"}; no debt was changed.`,
      errors.kept,
      errors.count,
    );
    await markSnapshotApplyFailed(trx, key, failure, now);
    await recordSnapshotEvent(trx, {
      companyId: scope.companyId,
      snapshotId,
      type: "snapshot.failed",
      occurredAt: now,
    });
    return { ...scope, outcome: "failed", code: "invalid_snapshot_row", errorCount: errors.count };
  }

  await openOmittedDebts(trx, { ...campaignScope, snapshotId }, DebtStatus.namedFilters.active);
  for (;;) {
    const omitted = await timed("read", () => fetchOmittedDebts(trx, OMITTED_PER_BATCH));
    if (omitted.debts.length > 0) {
      const settling = await timed("plan", () => Reconciliation.planSettlements(omitted.debts));
      await write(omitted, settling, []);
    }
    if (omitted.debts.length < OMITTED_PER_BATCH) break;
  }
  await closeOmittedDebts(trx);

  await timed("write", async () => {
    await markSnapshotCompleted(trx, key, { counts, warnings: warnings.kept, warningCount: warnings.count, now });
    const completed = await timed("events", () =>
      recordSnapshotEvent(trx, { companyId: scope.companyId, snapshotId, type: "snapshot.completed", occurredAt: now }),
    );
    webhookEvents += completed.events;
    webhookDeliveries += completed.deliveries;
  });
  const ms = rounded();
  return {
    ...scope,
    outcome: "completed",
    counts,
    warningCount: warnings.count,
    paymentsRecorded,
    webhookEvents,
    webhookDeliveries,
    phases: {
      readMs: ms.read,
      validateMs: ms.validate,
      planMs: ms.plan,
      writeMs: ms.write,
      eventsMs: ms.events,
      enrollMs: ms.enroll,
      statementMs,
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
