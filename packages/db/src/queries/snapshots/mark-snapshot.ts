/**
 * A snapshot's status moves made by the worker and the JSON shapes it writes
 * for the api to render (`counts`, `failure`, `warnings`; contract 2.8, 7.2):
 * `pending -> processing` (a short transaction of its own, so clients see
 * it), then `completed` or `failed` inside the applying transaction.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../../schema.ts";

/**
 * The channel on which every change of a snapshot's status is announced at
 * commit, with the snapshot's id as payload (migration 0015).
 */
export const SNAPSHOT_STATUS_CHANNEL = "snapshot_status";

/**
 * A snapshot named as every query of tenant data names a row: its company
 * and its id (DESIGN.md 6, docs/decisions/0023).
 */
export interface SnapshotRowKey {
  readonly companyId: number;
  readonly id: number;
}

/** Most entries kept in `failure.errors` and in `warnings`. */
export const MAX_REPORTED = 100;

/** One entry of `failure.errors`. */
export interface FailureError {
  readonly row_index: number;
  readonly field: string;
  readonly reason: string;
}

/** The `failure` object of a failed snapshot. */
export interface SnapshotFailure {
  readonly code: "invalid_snapshot_row" | "processing_error" | "snapshot_expired";
  readonly message: string;
  /** At most `MAX_REPORTED`, in row order. */
  readonly errors: ReadonlyArray<FailureError>;
  readonly error_count: number;
  readonly errors_omitted: number;
}

/** One entry of `warnings`. */
export interface SnapshotWarning {
  readonly row_index: number;
  readonly code: string;
  readonly field: string;
  readonly message: string;
}

/**
 * Builds a `failure` object, keeping the first `MAX_REPORTED` errors.
 * `errorCount` is the number of errors found, when `errors` holds only the
 * first of them (in row order).
 */
export const snapshotFailure = (
  code: SnapshotFailure["code"],
  message: string,
  errors: ReadonlyArray<FailureError> = [],
  errorCount: number = errors.length,
): SnapshotFailure => ({
  code,
  message,
  errors: errors.slice(0, MAX_REPORTED).map(({ row_index, field, reason }) => ({ row_index, field, reason })),
  error_count: errorCount,
  errors_omitted: Math.max(0, errorCount - Math.min(errors.length, MAX_REPORTED)),
});

/** `pending -> processing`; returns whether the snapshot moved (it may already be processing). */
export const markSnapshotProcessing = async (
  db: Kysely<Database>,
  snapshot: SnapshotRowKey,
  now: Date,
): Promise<boolean> => {
  const result = await sql`
    update snapshots set status = 'processing', updated_at = ${now.toISOString()}::timestamptz
    where company_id = ${snapshot.companyId} and id = ${snapshot.id} and status = 'pending'
  `.execute(db);
  return Number(result.numAffectedRows ?? 0n) === 1;
};

/**
 * Marks an applied snapshot `completed` with `core_applied`, its counts and
 * the first `MAX_REPORTED` warnings (the rest are counted, not kept).
 * `warningCount` is the number of warnings found, when `warnings` holds
 * only the first of them.
 */
export const markSnapshotCompleted = async (
  trx: Kysely<Database>,
  snapshot: SnapshotRowKey,
  result: {
    readonly counts: object;
    readonly warnings: ReadonlyArray<SnapshotWarning>;
    readonly warningCount?: number;
    readonly now: Date;
  },
): Promise<void> => {
  const kept = result.warnings
    .slice(0, MAX_REPORTED)
    .map(({ row_index, code, field, message }) => ({ row_index, code, field, message }));
  const warningCount = result.warningCount ?? result.warnings.length;
  const now = result.now.toISOString();
  await sql`
    update snapshots set status = 'completed', core_applied = true, counts = ${JSON.stringify(result.counts)}::jsonb,
      failure = null, warnings = ${JSON.stringify(kept)}::jsonb, warning_count = ${warningCount},
      warnings_omitted = ${Math.max(0, warningCount - kept.length)},
      completed_at = ${now}::timestamptz, updated_at = ${now}::timestamptz
    where company_id = ${snapshot.companyId} and id = ${snapshot.id}
  `.execute(trx);
};

/**
 * Marks a snapshot `failed` with `failure` (and `completed_at`, the end of
 * processing, as the api does for a failed finalization) when it is
 * `pending` or `processing` (never one already ended, nor one still
 * uploading); returns whether it changed (its `snapshot.failed` event is
 * then due). Nothing else is written: a failed snapshot changes no debt.
 */
export const markSnapshotApplyFailed = async (
  db: Kysely<Database>,
  snapshot: SnapshotRowKey,
  failure: SnapshotFailure,
  now: Date,
): Promise<boolean> => {
  const { rows } = await sql<{ id: number }>`
    update snapshots set status = 'failed', core_applied = false, failure = ${JSON.stringify(failure)}::jsonb,
      completed_at = ${now.toISOString()}::timestamptz, updated_at = ${now.toISOString()}::timestamptz
    where company_id = ${snapshot.companyId} and id = ${snapshot.id} and status in ('pending', 'processing')
    returning id
  `.execute(db);
  return rows.length === 1;
};
