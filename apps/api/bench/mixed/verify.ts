/**
 * The no-loss check after mixed load: every write the api acknowledged is in
 * PostgreSQL exactly once under the id it was acknowledged with, and every
 * accepted snapshot was applied by the worker (`completed`). Rows written by
 * requests cut off when the load stopped (never answered) are counted apart.
 */
import type { Database } from "@dc/db";
import { type Kysely, sql } from "kysely";
import type { DomainIds as Ids } from "@dc/db";
import { mergeAccepted, type StepResult } from "./drive.ts";
import type { AcceptedWrites } from "./mix.ts";

export interface WriteCheck {
  readonly accepted: number;
  /** Accepted and found once, under the acknowledged id. */
  readonly found: number;
  readonly missing: number;
  /** Found more than once, or under another id than acknowledged. */
  readonly duplicated: number;
  readonly mismatched: number;
  /** Rows of the run that no 2xx acknowledged (requests in flight when the load stopped). */
  readonly unacknowledged: number;
}

export interface Verification {
  readonly debts: WriteCheck;
  readonly followups: WriteCheck;
  readonly snapshots: WriteCheck & { readonly byStatus: Record<string, number> };
  /** Seconds waited for the worker to finish the accepted snapshots. */
  readonly waitedSeconds: number;
  readonly problems: ReadonlyArray<string>;
  readonly ok: boolean;
}

/** Waits until no snapshot of the run is `pending` or `processing`, or `timeoutMs` passes; returns the seconds waited. */
export const waitForSnapshots = async (db: Kysely<Database>, runTag: string, timeoutMs: number): Promise<number> => {
  const started = Date.now();
  for (;;) {
    const { open } = await db
      .selectFrom("snapshots")
      .select((eb) => eb.fn.countAll<string>().as("open"))
      .where("snapshot_reference", "like", `load-${runTag}-%`)
      .where("status", "in", ["pending", "processing"])
      .executeTakeFirstOrThrow();
    if (Number(open) === 0 || Date.now() - started > timeoutMs) return Math.round((Date.now() - started) / 100) / 10;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
};

const check = (
  accepted: ReadonlyArray<{ readonly key: string; readonly id: number | undefined }>,
  rows: ReadonlyArray<{ readonly key: string; readonly id: number }>,
): WriteCheck => {
  const byKey = new Map<string, number[]>();
  for (const row of rows) byKey.set(row.key, [...(byKey.get(row.key) ?? []), row.id]);
  let found = 0;
  let missing = 0;
  let duplicated = 0;
  let mismatched = 0;
  const acknowledged = new Set<string>();
  for (const write of accepted) {
    if (acknowledged.has(write.key)) duplicated++;
    acknowledged.add(write.key);
    const matches = byKey.get(write.key) ?? [];
    if (matches.length === 0) missing++;
    else if (matches.length > 1) duplicated++;
    else if (write.id !== undefined && matches[0] !== write.id) mismatched++;
    else found++;
  }
  const unacknowledged = [...byKey.keys()].filter((key) => !acknowledged.has(key)).length;
  return { accepted: accepted.length, found, missing, duplicated, mismatched, unacknowledged };
};

/**
 * Checks `accepted` (every step of run `runTag`) against the database.
 * `maxUnacknowledged` bounds the rows nobody acknowledged: at most one
 * request per connection is cut off when a step ends, plus one per transport error.
 */
export const verifyAccepted = async (
  db: Kysely<Database>,
  ids: Ids,
  runTag: string,
  accepted: AcceptedWrites,
  maxUnacknowledged: number,
): Promise<Omit<Verification, "waitedSeconds">> => {
  const debtRows = await db
    .selectFrom("debts")
    .select(["id", "internal_id"])
    .where("internal_id", "like", `LOAD-${runTag}-%`)
    .execute();
  const followupRows = await db
    .selectFrom("followups")
    .select(["id", "call_id"])
    .where("call_id", "like", `LOAD-${runTag}-%`)
    .execute();
  const snapshotRows = await db
    .selectFrom("snapshots")
    .innerJoin("campaigns", "campaigns.id", "snapshots.campaign_id")
    .select([
      "snapshots.id",
      "snapshots.snapshot_reference",
      "snapshots.status",
      sql<string>`campaigns.api_reference`.as("campaign"),
    ])
    .where("snapshots.snapshot_reference", "like", `load-${runTag}-%`)
    .execute();

  const debts = check(
    accepted.debts.map((debt) => ({ key: debt.internalId, id: ids.decode("debt", debt.id) })),
    debtRows.map((row) => ({ key: row.internal_id ?? "", id: Number(row.id) })),
  );
  const followups = check(
    accepted.followups.map((followup) => ({ key: followup.callId, id: ids.decode("followup", followup.id) })),
    followupRows.map((row) => ({ key: row.call_id ?? "", id: Number(row.id) })),
  );
  const acceptedSnapshots = new Set(accepted.snapshots.map((snapshot) => `${snapshot.campaign}/${snapshot.reference}`));
  const byStatus: Record<string, number> = {};
  for (const row of snapshotRows) {
    if (acceptedSnapshots.has(`${row.campaign}/${row.snapshot_reference}`))
      byStatus[row.status] = (byStatus[row.status] ?? 0) + 1;
  }
  const snapshots = {
    ...check(
      accepted.snapshots.map((snapshot) => ({ key: `${snapshot.campaign}/${snapshot.reference}`, id: undefined })),
      snapshotRows.map((row) => ({ key: `${row.campaign}/${row.snapshot_reference}`, id: Number(row.id) })),
    ),
    byStatus,
  };

  const problems: string[] = [];
  for (const [name, result] of [
    ["debts", debts],
    ["followups", followups],
    ["snapshots", snapshots],
  ] as const) {
    if (result.missing > 0) problems.push(`${result.missing} accepted ${name} missing`);
    if (result.duplicated > 0) problems.push(`${result.duplicated} accepted ${name} duplicated`);
    if (result.mismatched > 0) problems.push(`${result.mismatched} accepted ${name} stored under another id`);
  }
  const notCompleted = snapshots.accepted - (byStatus["completed"] ?? 0);
  if (notCompleted > 0) problems.push(`${notCompleted} accepted snapshots not completed: ${JSON.stringify(byStatus)}`);
  const unacknowledged = debts.unacknowledged + followups.unacknowledged + snapshots.unacknowledged;
  if (unacknowledged > maxUnacknowledged)
    problems.push(
      `${unacknowledged} rows written without an acknowledgement (at most ${maxUnacknowledged} requests were cut off)`,
    );
  return { debts, followups, snapshots, problems, ok: problems.length === 0 };
};

/**
 * After the load: waits (up to `timeoutMs`) for the worker to finish the
 * run's snapshots, then checks every step's accepted writes.
 */
export const verifyRun = async (
  db: Kysely<Database>,
  ids: Ids,
  runTag: string,
  steps: ReadonlyArray<StepResult>,
  timeoutMs: number,
): Promise<Verification> => {
  const waitedSeconds = await waitForSnapshots(db, runTag, timeoutMs);
  const cutOff = steps.reduce((sum, step) => sum + step.connections + step.transportErrors, 0);
  return { ...(await verifyAccepted(db, ids, runTag, mergeAccepted(steps), cutOff)), waitedSeconds };
};
