/**
 * A staged snapshot left `uploading` too long expires (docs/decisions/0022):
 * the worker makes it `failed` with failure code `snapshot_expired`. It then
 * takes no new chunk and no finalize; both answer 409 `snapshot_expired`, so
 * the integration knows to start again under a new reference.
 */
import { SnapshotFailure, snapshotErrorCodes, snapshotMessages } from "@dc/contract";
import type { Snapshot } from "@dc/db";
import { Schema } from "effect";
import { Conflict } from "../../http/api-error.ts";

const decodeFailure = Schema.decodeUnknownSync(Schema.NullOr(SnapshotFailure));

/** 409 `snapshot_expired` when `snapshot` expired before its finalize, else undefined. */
export const expiredConflict = (snapshot: Pick<Snapshot, "status" | "failure">): Conflict | undefined =>
  snapshot.status === "failed" && decodeFailure(snapshot.failure)?.code === "snapshot_expired"
    ? new Conflict({ errorCode: snapshotErrorCodes.expired, message: snapshotMessages.expired })
    : undefined;
