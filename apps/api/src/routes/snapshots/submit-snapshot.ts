/**
 * PUT /campaigns/{apiReference}/snapshots/{snapshotReference}: the one-request
 * submit (contract 4.3). The body's SHA-256 is its identity. A new reference
 * with valid rows is stored (snapshot, chunk 0 and the apply job) in one
 * transaction and answered 202; a reused reference is answered from the
 * stored snapshot, never re-applied.
 */
import { type Endpoints, snapshotErrorCodes, snapshotMessages } from "@dc/contract";
import {
  enqueueApplySnapshot,
  findSnapshot,
  insertChunkUnlessExists,
  insertSnapshotUnlessExists,
  lockSnapshotAcceptance,
  type Snapshot,
} from "@dc/db";
import { Conflict } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { bodyDigest } from "./body-digest.ts";
import { presentSnapshot } from "../../presenters/present-snapshot.ts";
import { acknowledgementReply, isSettled } from "./snapshot-ack.ts";
import { readSnapshot, requireCampaign, snapshotKey } from "./snapshot-lookup.ts";
import { validateSnapshotRows } from "./snapshot-rows.ts";

/** The answer to a reference already taken: replay when mode and bytes are the same, else 409. */
const answerExisting = (existing: Snapshot, digest: Buffer, apiReference: string) => {
  if (existing.delivery_mode !== "one_request") {
    throw new Conflict({
      errorCode: snapshotErrorCodes.deliveryModeConflict,
      message: snapshotMessages.deliveryModeConflict(existing.delivery_mode),
    });
  }
  if (existing.body_sha256 === null || !existing.body_sha256.equals(digest)) {
    throw new Conflict({
      errorCode: snapshotErrorCodes.referenceConflict,
      message: snapshotMessages.referenceConflict,
    });
  }
  const settled = isSettled(existing);
  return acknowledgementReply(
    settled ? 200 : 202,
    settled ? snapshotMessages.alreadyProcessed : snapshotMessages.alreadyAccepted,
    presentSnapshot(existing, apiReference),
    true,
  );
};

export const submitSnapshot: HandlerOf<Endpoints["submitSnapshot"]> = async ({
  params,
  body,
  rawBody,
  principal,
  services,
}) => {
  const digest = bodyDigest(rawBody);
  const campaign = await requireCampaign(services, principal, params.apiReference);
  const key = snapshotKey(principal, campaign, params.snapshotReference);
  const existing = await findSnapshot(services.db, key);
  if (existing !== undefined) return answerExisting(existing, digest, campaign.api_reference);

  const bodyText = rawBody.toString("utf8");
  const { raw } = validateSnapshotRows(body, bodyText, 0);
  const now = services.clock.now();
  const created = await services.db.transaction().execute(async (trx) => {
    await lockSnapshotAcceptance(trx, campaign.id);
    const snapshot = await insertSnapshotUnlessExists(trx, {
      ...key,
      deliveryMode: "one_request",
      status: "pending",
      bodySha256: digest,
      expectedRowCount: raw.length,
      receivedRowCount: raw.length,
      receivedChunkCount: 1,
      nextChunkIndex: 1,
      integrationClientPk: principal.clientPk,
      now,
    });
    // A concurrent request took the reference first: nothing is written here.
    if (snapshot === undefined) return undefined;
    await insertChunkUnlessExists(trx, {
      snapshotId: snapshot.id,
      companyId: principal.companyId,
      chunkIndex: 0,
      bodySha256: digest,
      rows: raw,
      bodyText,
      now,
    });
    // In the same transaction as the snapshot: a crash can neither lose the job nor double it.
    await enqueueApplySnapshot(trx, { id: snapshot.id, companyId: principal.companyId, campaignId: campaign.id });
    return snapshot;
  });
  if (created === undefined) {
    return answerExisting(
      await readSnapshot(services, principal, campaign, params.snapshotReference),
      digest,
      campaign.api_reference,
    );
  }
  return acknowledgementReply(202, snapshotMessages.accepted, presentSnapshot(created, campaign.api_reference), false);
};
