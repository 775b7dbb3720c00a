/**
 * Staged snapshots left `uploading` expire (docs/decisions/0022): those whose
 * last activity (start or last chunk, `updated_at`) is more than the expiry's
 * days old become `failed` with a `snapshot_expired` failure, and their
 * `snapshot.failed` events are recorded in the same transaction. Nothing else
 * changes: a staged snapshot touches no debt before its finalize.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../../schema.ts";
import { snapshotsEventData } from "../webhooks/event-data/snapshot-data.ts";
import { recordEvents } from "../webhooks/record-event.ts";
import { snapshotFailure } from "./mark-snapshot.ts";

/** What one expiry batch did. */
export interface ExpiredStagedSnapshots {
  /** Snapshots that became `failed`. */
  readonly snapshots: number;
  /** `snapshot.failed` events recorded for them (none for a company without a subscribed endpoint). */
  readonly events: number;
}

export interface StagedExpiryBatch {
  /** Days an upload may stay idle (at least 1). */
  readonly idleDays: number;
  readonly limit: number;
  readonly now: Date;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The `failure` of a staged snapshot expired after `days` idle days. */
export const expiredUploadFailure = (days: number) =>
  snapshotFailure(
    "snapshot_expired",
    `Staged snapshot not finalized within ${days} day${days === 1 ? "" : "s"} of its start or last chunk`,
  );

/**
 * Expires up to `limit` staged snapshots idle for more than `idleDays`, all
 * of one company (DESIGN.md 6: no transaction spans two companies), the
 * company of the oldest idle upload no other transaction holds, oldest
 * first, in the caller's transaction. A snapshot another transaction holds
 * (a chunk being stored, a finalize) is skipped, not waited for: that
 * request moves it on, and a later run sees its new `updated_at`. A request
 * that comes second finds it `failed` and answers 409 `snapshot_expired`.
 */
export const expireStagedSnapshots = async (
  trx: Kysely<Database>,
  batch: StagedExpiryBatch,
): Promise<ExpiredStagedSnapshots> => {
  const now = batch.now.toISOString();
  const cutoff = new Date(batch.now.getTime() - batch.idleDays * DAY_MS).toISOString();
  const { rows } = await sql<{ id: number; company_id: number }>`
    with company as (
      select company_id from snapshots
      where status = 'uploading' and updated_at < ${cutoff}::timestamptz
      order by updated_at
      limit 1
      for update skip locked
    ), idle as (
      select id from snapshots
      where company_id = (select company_id from company) and status = 'uploading'
        and updated_at < ${cutoff}::timestamptz
      order by updated_at
      limit ${batch.limit}
      for update skip locked
    )
    update snapshots s
    set status = 'failed', core_applied = false, failure = ${JSON.stringify(expiredUploadFailure(batch.idleDays))}::jsonb,
      completed_at = ${now}::timestamptz, updated_at = ${now}::timestamptz
    from idle where s.company_id = (select company_id from company) and s.id = idle.id
    returning s.id, s.company_id
  `.execute(trx);
  const companyId = rows[0]?.company_id;
  if (companyId === undefined) return { snapshots: 0, events: 0 };
  const expired = await snapshotsEventData(
    trx,
    companyId,
    rows.map((row) => row.id),
  );
  const recorded = await recordEvents(
    trx,
    expired.map(({ data }) => ({ companyId, type: "snapshot.failed", data, occurredAt: batch.now })),
  );
  return { snapshots: rows.length, events: recorded.events };
};

/**
 * Expires up to `limit` idle staged snapshots in short transactions of their
 * own, one company each (the worker's hourly purge).
 */
export const expireStagedSnapshotsBatch = async (
  db: Kysely<Database>,
  batch: StagedExpiryBatch,
): Promise<ExpiredStagedSnapshots> => {
  const total = { snapshots: 0, events: 0 };
  while (total.snapshots < batch.limit) {
    const expired = await db
      .transaction()
      .execute((trx) => expireStagedSnapshots(trx, { ...batch, limit: batch.limit - total.snapshots }));
    if (expired.snapshots === 0) break;
    total.snapshots += expired.snapshots;
    total.events += expired.events;
  }
  return total;
};
