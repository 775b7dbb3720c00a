/**
 * PUT /campaigns/{apiReference}/snapshots/{snapshotReference}/chunks/{chunkIndex}:
 * stores one chunk of an `uploading` staged snapshot (contract 4.2, 3.4). No
 * debt changes. Chunk 0 on a reference holding no snapshot opens it, staged
 * and with no declared row count, in the transaction that stores the chunk
 * (docs/decisions/0580). An accepted index is answered from its stored digest (200 or
 * 409 `chunk_content_conflict`) in every state. A new chunk must be the next
 * index and fit `expected_row_count`; the chunk's primary key and a
 * conditional update of the snapshot decide between concurrent uploads. An
 * expired snapshot takes no new chunk (docs/decisions/0022).
 */
import {
  type Endpoints,
  MAX_STAGED_ROWS,
  type SnapshotChunkAcknowledgement,
  snapshotErrorCodes,
  snapshotMessages,
} from "@dc/contract";
import {
  findChunkDigest,
  findSnapshot,
  insertChunkUnlessExists,
  insertSnapshotUnlessExists,
  type NewSnapshot,
  recordChunk,
  type Snapshot,
  type SnapshotCampaign,
} from "@dc/db";
import type { Principal } from "../../auth/bearer.ts";
import { Conflict, NotFound, ValidationFailed } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";
import type { AppServices } from "../../services.ts";
import { bodyDigest } from "./body-digest.ts";
import { presentSnapshot } from "../../presenters/present-snapshot.ts";
import { acknowledgementReply } from "./snapshot-ack.ts";
import { readSnapshot, requireCampaign, snapshotKey } from "./snapshot-lookup.ts";
import { validateSnapshotRows } from "./snapshot-rows.ts";
import { expiredConflict } from "./staged-expiry.ts";

const chunkAck = (snapshot: Snapshot, apiReference: string, chunkIndex: number): SnapshotChunkAcknowledgement => ({
  ...presentSnapshot(snapshot, apiReference),
  chunk_index: chunkIndex,
});

/**
 * Why a new chunk at `index` cannot be taken in the snapshot's state, if it
 * cannot. An index above `next_chunk_index` is `chunk_out_of_order` in every
 * state (contract 4.2 rule 5); the next index of a snapshot that is not
 * `uploading` is refused for its state.
 */
const refusal = (snapshot: Snapshot, index: number): Conflict | undefined => {
  if (index > snapshot.next_chunk_index) {
    return new Conflict({
      errorCode: snapshotErrorCodes.chunkOutOfOrder,
      message: snapshotMessages.chunkOutOfOrder(index, snapshot.next_chunk_index),
    });
  }
  const expired = expiredConflict(snapshot);
  if (expired !== undefined) return expired;
  if (snapshot.status !== "uploading") {
    return new Conflict({
      errorCode: snapshotErrorCodes.alreadyFinalized,
      message: snapshotMessages.finalizedNoChunks,
    });
  }
  return undefined;
};

/** The 422 for rows beyond the declared count, or beyond the most a staged snapshot holds while none is declared. */
const exceededBy = (snapshot: Snapshot, rowCount: number): ValidationFailed | undefined => {
  const total = snapshot.received_row_count + rowCount;
  const bound =
    snapshot.expected_row_count === null
      ? { limit: MAX_STAGED_ROWS, name: "the most rows a staged snapshot holds" }
      : { limit: snapshot.expected_row_count, name: "its expected_row_count" };
  if (total <= bound.limit) return undefined;
  return new ValidationFailed({
    status: 422,
    errorCode: snapshotErrorCodes.expectedRowCountExceeded,
    details: {
      rows: `${rowCount} row(s) would bring the snapshot to ${total} rows, above ${bound.name} of ${bound.limit}`,
    },
  });
};

interface Context {
  readonly services: AppServices;
  readonly principal: Principal;
  readonly campaign: SnapshotCampaign;
  readonly index: number;
  readonly digest: Buffer;
}

/** A one-request snapshot under the reference takes no chunk: 409 `snapshot_delivery_mode_conflict`. */
const requireStaged = (snapshot: Snapshot): void => {
  if (snapshot.delivery_mode !== "staged") {
    throw new Conflict({
      errorCode: snapshotErrorCodes.deliveryModeConflict,
      message: snapshotMessages.deliveryModeConflict(snapshot.delivery_mode),
    });
  }
};

/** The answer for an index already stored (200 replay or 409), or undefined when it is not. */
const answerStoredChunk = async (context: Context, snapshot: Snapshot) => {
  const stored = await findChunkDigest(
    context.services.db,
    { id: snapshot.id, companyId: context.principal.companyId },
    context.index,
  );
  if (stored === undefined) return undefined;
  if (!stored.body_sha256.equals(context.digest)) {
    throw new Conflict({
      errorCode: snapshotErrorCodes.chunkContentConflict,
      message: snapshotMessages.chunkContentConflict(context.index),
    });
  }
  return acknowledgementReply(
    200,
    snapshotMessages.chunkAlreadyAccepted,
    chunkAck(snapshot, context.campaign.api_reference, context.index),
    true,
  );
};

/** Thrown inside the transaction to roll the chunk back when a concurrent request changed the snapshot first. */
class LostRace extends Error {}

/**
 * The staged snapshot that chunk 0 opens on a free reference: `uploading`,
 * with no declared row count until a start or the finalization declares one.
 */
const openedByChunk = (context: Context, reference: string, now: Date): NewSnapshot => ({
  ...snapshotKey(context.principal, context.campaign, reference),
  deliveryMode: "staged",
  status: "uploading",
  bodySha256: null,
  expectedRowCount: null,
  receivedRowCount: 0,
  receivedChunkCount: 0,
  nextChunkIndex: 0,
  integrationClientPk: context.principal.clientPk,
  now,
});

export const uploadSnapshotChunk: HandlerOf<Endpoints["uploadSnapshotChunk"]> = async (request) => {
  const { params, body, rawBody, principal, services } = request;
  const digest = bodyDigest(rawBody);
  const campaign = await requireCampaign(services, principal, params.apiReference);
  const found = await findSnapshot(services.db, snapshotKey(principal, campaign, params.snapshotReference));
  if (found === undefined && params.chunkIndex !== 0)
    throw new NotFound({ message: snapshotMessages.snapshotNotFound });
  const context: Context = { services, principal, campaign, index: params.chunkIndex, digest };
  if (found !== undefined) {
    requireStaged(found);
    const replay = await answerStoredChunk(context, found);
    if (replay !== undefined) return replay;
    const refused = refusal(found, params.chunkIndex);
    if (refused !== undefined) throw refused;
  }

  const bodyText = rawBody.toString("utf8");
  const receivedBefore = found?.received_row_count ?? 0;
  // Chunks are contiguous, so the rows before this index are exactly the rows received so far.
  const { raw } = validateSnapshotRows(body, bodyText, receivedBefore);
  const over = found === undefined ? undefined : exceededBy(found, raw.length);
  if (over !== undefined) throw over;

  const now = services.clock.now();
  try {
    const accepted = await services.db.transaction().execute(async (trx) => {
      // A concurrent request that took the free reference first leaves nothing inserted: answer from its state.
      const snapshot =
        found ?? (await insertSnapshotUnlessExists(trx, openedByChunk(context, params.snapshotReference, now)));
      if (snapshot === undefined) throw new LostRace();
      const stored = await insertChunkUnlessExists(trx, {
        snapshotId: snapshot.id,
        companyId: principal.companyId,
        chunkIndex: params.chunkIndex,
        bodySha256: digest,
        rows: raw,
        bodyText,
        now,
      });
      if (!stored) return undefined;
      const updated = await recordChunk(trx, {
        snapshotId: snapshot.id,
        companyId: principal.companyId,
        chunkIndex: params.chunkIndex,
        rowCount: raw.length,
        maxRows: MAX_STAGED_ROWS,
        now,
      });
      if (updated === undefined) throw new LostRace();
      return updated;
    });
    if (accepted !== undefined) {
      return acknowledgementReply(
        201,
        snapshotMessages.chunkAccepted,
        chunkAck(accepted, campaign.api_reference, params.chunkIndex),
        false,
      );
    }
  } catch (error) {
    if (!(error instanceof LostRace)) throw error;
  }
  // Another request stored this index or changed the snapshot first: answer from the state it left.
  const current = await readSnapshot(services, principal, campaign, params.snapshotReference);
  requireStaged(current);
  const answer = await answerStoredChunk(context, current);
  if (answer !== undefined) return answer;
  const refusedNow = refusal(current, params.chunkIndex);
  if (refusedNow !== undefined) throw refusedNow;
  const overNow = exceededBy(current, raw.length);
  if (overNow !== undefined) throw overNow;
  // A concurrent start took the free reference without storing this chunk: upload it to that snapshot.
  if (found === undefined) return uploadSnapshotChunk(request);
  throw new Error(`chunk ${params.chunkIndex} of snapshot ${current.id} lost a race with no visible cause`);
};
