/**
 * PUT /campaigns/{apiReference}/snapshots/{snapshotReference}/chunks/{chunkIndex}:
 * stores one chunk of an `uploading` staged snapshot (contract 4.2, 3.4). No
 * debt changes. An accepted index is answered from its stored digest (200 or
 * 409 `chunk_content_conflict`) in every state. A new chunk must be the next
 * index and fit `expected_row_count`; the chunk's primary key and a
 * conditional update of the snapshot decide between concurrent uploads. An
 * expired snapshot takes no new chunk (docs/decisions/0022).
 */
import { type Endpoints, type SnapshotChunkAcknowledgement, snapshotErrorCodes, snapshotMessages } from "@dc/contract";
import { findChunkDigest, insertChunkUnlessExists, recordChunk, type Snapshot, type SnapshotCampaign } from "@dc/db";
import type { Principal } from "../../auth/bearer.ts";
import { Conflict, ValidationFailed } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";
import type { AppServices } from "../../services.ts";
import { bodyDigest } from "./body-digest.ts";
import { acknowledgement, acknowledgementReply } from "./snapshot-ack.ts";
import { readSnapshot, requireSnapshot } from "./snapshot-lookup.ts";
import { validateSnapshotRows } from "./snapshot-rows.ts";
import { expiredConflict } from "./staged-expiry.ts";

const chunkAck = (snapshot: Snapshot, apiReference: string, chunkIndex: number): SnapshotChunkAcknowledgement => ({
  ...acknowledgement(snapshot, apiReference),
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

const exceeded = (snapshot: Snapshot, rowCount: number): ValidationFailed =>
  new ValidationFailed({
    status: 422,
    errorCode: snapshotErrorCodes.expectedRowCountExceeded,
    details: {
      rows: `${rowCount} row(s) would bring the snapshot to ${snapshot.received_row_count + rowCount} rows, above its expected_row_count of ${snapshot.expected_row_count}`,
    },
  });

interface Context {
  readonly services: AppServices;
  readonly principal: Principal;
  readonly campaign: SnapshotCampaign;
  readonly index: number;
  readonly digest: Buffer;
}

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

export const uploadSnapshotChunk: HandlerOf<Endpoints["uploadSnapshotChunk"]> = async ({
  params,
  body,
  rawBody,
  principal,
  services,
}) => {
  const digest = bodyDigest(rawBody);
  const { campaign, snapshot } = await requireSnapshot(services, principal, params);
  const context: Context = { services, principal, campaign, index: params.chunkIndex, digest };
  if (snapshot.delivery_mode !== "staged") {
    throw new Conflict({
      errorCode: snapshotErrorCodes.deliveryModeConflict,
      message: snapshotMessages.deliveryModeConflict(snapshot.delivery_mode),
    });
  }
  const replay = await answerStoredChunk(context, snapshot);
  if (replay !== undefined) return replay;
  const refused = refusal(snapshot, params.chunkIndex);
  if (refused !== undefined) throw refused;

  const bodyText = rawBody.toString("utf8");
  // Chunks are contiguous, so the rows before this index are exactly the rows received so far.
  const { raw } = validateSnapshotRows(body, bodyText, snapshot.received_row_count);
  if (snapshot.received_row_count + raw.length > snapshot.expected_row_count) throw exceeded(snapshot, raw.length);

  const now = services.clock.now();
  try {
    const accepted = await services.db.transaction().execute(async (trx) => {
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
  const answer = await answerStoredChunk(context, current);
  if (answer !== undefined) return answer;
  const refusedNow = refusal(current, params.chunkIndex);
  if (refusedNow !== undefined) throw refusedNow;
  if (current.received_row_count + raw.length > current.expected_row_count) throw exceeded(current, raw.length);
  throw new Error(`chunk ${params.chunkIndex} of snapshot ${current.id} lost a race with no visible cause`);
};
