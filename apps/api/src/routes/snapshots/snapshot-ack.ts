/**
 * The snapshot acknowledgement's reply (contract 2.8) that every snapshot
 * operation answers with, carrying `Location`, and the states that decide
 * between waiting and answering. The acknowledgement itself is
 * `presentSnapshot` (presenters/present-snapshot.ts).
 */
import type { SnapshotAcknowledgement } from "@dc/contract";
import type { Snapshot } from "@dc/db";
import type { Reply } from "../../http/handler.ts";

/** Completed or failed: a retry gets 200 with this result instead of 202. */
export const isSettled = (snapshot: Pick<Snapshot, "status">): boolean =>
  snapshot.status === "completed" || snapshot.status === "failed";

/** Accepted and not yet settled: the worker owes its outcome (a staged snapshot still `uploading` waits for the integration). */
export const awaitsWorker = (snapshot: Pick<Snapshot, "status">): boolean =>
  snapshot.status === "pending" || snapshot.status === "processing";

/**
 * The success reply of a snapshot operation. `replay` marks an identical
 * retry of a decision already taken: it is not counted against the rate
 * limit (docs/decisions/0305).
 */
export const acknowledgementReply = <Data extends SnapshotAcknowledgement>(
  status: number,
  message: string,
  data: Data,
  replay: boolean,
): Reply<{ readonly error: false; readonly message: string; readonly data: Data }> => ({
  status,
  body: { error: false, message, data },
  headers: { Location: data.status_url },
  ...(replay ? { replay: true } : {}),
});
