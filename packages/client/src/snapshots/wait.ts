/**
 * Reading a snapshot's status resource until the worker has applied it
 * (`completed`) or given up on it (`failed`). 202 from a submit or finalize
 * only means "accepted"; this is how an integration learns the outcome.
 * Each read asks the api to answer only once the snapshot settles, for as
 * long as the timeout leaves (`Prefer: wait`; the api caps it, 30 s,
 * docs/decisions/0307), so the outcome arrives when it happens; an api that
 * does not honour the preference is polled every `intervalMs`.
 */
import type { DebtCollectionClient } from "../client.ts";
import { DebtCollectionError } from "../errors.ts";
import { sleep as realSleep } from "../retry.ts";
import { readSnapshotStatus, type SnapshotAcknowledgement, type SnapshotTarget } from "./upload.ts";

export interface WaitOptions extends SnapshotTarget {
  /** Give up after this long (default 10 minutes). */
  readonly timeoutMs?: number;
  /** Time between two reads of the status when the api does not wait for the outcome itself (default 2 s). */
  readonly intervalMs?: number;
  /** Called with every status read; for progress output. */
  readonly onStatus?: (status: SnapshotAcknowledgement) => void;
  /** Time source and wait, for tests. */
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

/** The snapshot was still not settled when `waitForSnapshot` gave up; `last` is the last status read. */
export class SnapshotWaitTimeout extends Error {
  override readonly name = "SnapshotWaitTimeout";
  readonly last: SnapshotAcknowledgement;

  constructor(last: SnapshotAcknowledgement, timeoutMs: number) {
    super(`snapshot ${last.snapshot_reference} is still ${last.status} after ${timeoutMs} ms`);
    this.last = last;
  }
}

/**
 * Resolves with the settled status: `completed` (see `counts` and
 * `warnings`) or `failed` (see `failure`); a failed snapshot is an outcome,
 * not an exception. Throws `DebtCollectionError` when the status cannot be
 * read, and `SnapshotWaitTimeout` past the timeout.
 */
export const waitForSnapshot = async (client: DebtCollectionClient, options: WaitOptions): Promise<SnapshotAcknowledgement> => {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? realSleep;
  const timeoutMs = options.timeoutMs ?? 600_000;
  const intervalMs = options.intervalMs ?? 2_000;
  const deadline = now() + timeoutMs;
  for (;;) {
    const waitSeconds = Math.max(0, Math.floor((deadline - now()) / 1_000));
    const read = await readSnapshotStatus(client, options, waitSeconds);
    if (read === undefined) {
      throw new DebtCollectionError({ kind: "api", status: 404, message: "Snapshot not found", code: 404 });
    }
    const { status, waited } = read;
    options.onStatus?.(status);
    if (status.status === "completed" || status.status === "failed") return status;
    const pause = waited && waitSeconds > 0 ? 0 : intervalMs;
    if (now() + pause > deadline || (pause === 0 && now() >= deadline)) throw new SnapshotWaitTimeout(status, timeoutMs);
    if (pause > 0) await sleep(pause);
  }
};
