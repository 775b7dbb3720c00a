/**
 * POST /campaigns/{apiReference}/snapshots/{snapshotReference}/start: opens a
 * staged snapshot (`uploading`) declaring its row count (docs/decisions/0301).
 * The unique reference decides between concurrent starts; a retry with the
 * same count is answered with the current state. On a snapshot its chunk 0
 * opened without a count, the start declares it, if the rows received fit
 * (docs/decisions/0580).
 */
import { type Endpoints, snapshotErrorCodes, snapshotMessages } from "@dc/contract";
import { declareRowCount, insertSnapshotUnlessExists, type Snapshot } from "@dc/db";
import { Conflict } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { presentSnapshot } from "../../presenters/present-snapshot.ts";
import { acknowledgementReply } from "./snapshot-ack.ts";
import { readSnapshot, requireCampaign, snapshotKey } from "./snapshot-lookup.ts";

export const startStagedSnapshot: HandlerOf<Endpoints["startStagedSnapshot"]> = async ({
  params,
  body,
  principal,
  services,
}) => {
  const campaign = await requireCampaign(services, principal, params.apiReference);
  const created = await insertSnapshotUnlessExists(services.db, {
    ...snapshotKey(principal, campaign, params.snapshotReference),
    deliveryMode: "staged",
    status: "uploading",
    bodySha256: null,
    expectedRowCount: body.expected_row_count,
    receivedRowCount: 0,
    receivedChunkCount: 0,
    nextChunkIndex: 0,
    integrationClientPk: principal.clientPk,
    now: services.clock.now(),
  });
  if (created !== undefined) {
    return acknowledgementReply(201, snapshotMessages.started, presentSnapshot(created, campaign.api_reference), false);
  }
  const stored = await readSnapshot(services, principal, campaign, params.snapshotReference);
  const existing: Snapshot =
    stored.expected_row_count === null && stored.delivery_mode === "staged"
      ? ((await declareRowCount(services.db, {
          id: stored.id,
          companyId: principal.companyId,
          expectedRowCount: body.expected_row_count,
          now: services.clock.now(),
        })) ?? (await readSnapshot(services, principal, campaign, params.snapshotReference)))
      : stored;
  if (existing.delivery_mode !== "staged") {
    throw new Conflict({
      errorCode: snapshotErrorCodes.deliveryModeConflict,
      message: snapshotMessages.deliveryModeConflict(existing.delivery_mode),
    });
  }
  if (existing.expected_row_count !== body.expected_row_count) {
    throw new Conflict({
      errorCode: snapshotErrorCodes.referenceConflict,
      message: snapshotMessages.referenceConflict,
    });
  }
  return acknowledgementReply(
    200,
    snapshotMessages.alreadyStarted,
    presentSnapshot(existing, campaign.api_reference),
    true,
  );
};
