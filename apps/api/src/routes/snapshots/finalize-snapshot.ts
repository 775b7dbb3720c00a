/**
 * POST /campaigns/{apiReference}/snapshots/{snapshotReference}/finalize:
 * closes a staged snapshot (docs/decisions/0301). With every declared row
 * received and the cross-chunk rules met, the snapshot becomes `pending` and
 * its apply job is added in the same transaction (202). Rows breaking a
 * cross-chunk rule make it `failed` with that `failure` (422): its accepted
 * chunks can never change; its `snapshot.failed` webhook event is recorded
 * in the same transaction. A repeated finalize answers with the state reached;
 * an expired snapshot (docs/decisions/0022) is 409 `snapshot_expired`.
 */
import { type Endpoints, MAX_LISTED_ISSUES, snapshotErrorCodes, snapshotMessages } from "@dc/contract";
import {
  enqueueApplySnapshot,
  findCrossRowErrors,
  lockSnapshotAcceptance,
  markSnapshotFailed,
  markSnapshotPending,
  recordSnapshotEvent,
  type Snapshot,
} from "@dc/db";
import { Conflict } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { invalidRowsFailure } from "./cross-chunk-rules.ts";
import { presentSnapshot } from "../../presenters/present-snapshot.ts";
import { acknowledgementReply, isSettled } from "./snapshot-ack.ts";
import { readSnapshot, requireSnapshot } from "./snapshot-lookup.ts";
import { invalidRows } from "./snapshot-rows.ts";
import { expiredConflict } from "./staged-expiry.ts";

/** The answer when the snapshot cannot be finalized now, or undefined when it can. */
const settledAnswer = (snapshot: Snapshot, apiReference: string) => {
  if (snapshot.delivery_mode !== "staged") {
    throw new Conflict({
      errorCode: snapshotErrorCodes.deliveryModeConflict,
      message: snapshotMessages.deliveryModeConflict(snapshot.delivery_mode),
    });
  }
  const expired = expiredConflict(snapshot);
  if (expired !== undefined) throw expired;
  if (snapshot.status !== "uploading") {
    return acknowledgementReply(
      isSettled(snapshot) ? 200 : 202,
      snapshotMessages.alreadyFinalized,
      presentSnapshot(snapshot, apiReference),
      true,
    );
  }
  // An undeclared count is declared by the finalization itself: the rows received (docs/decisions/0580).
  if (snapshot.expected_row_count !== null && snapshot.received_row_count !== snapshot.expected_row_count) {
    throw new Conflict({
      errorCode: snapshotErrorCodes.incomplete,
      message: snapshotMessages.incomplete(snapshot.received_row_count, snapshot.expected_row_count),
    });
  }
  return undefined;
};

export const finalizeSnapshot: HandlerOf<Endpoints["finalizeSnapshot"]> = async ({ params, principal, services }) => {
  const { campaign, snapshot } = await requireSnapshot(services, principal, params);
  const early = settledAnswer(snapshot, campaign.api_reference);
  if (early !== undefined) return early;

  // Only the errors listed leave the database: a million-row snapshot can break a rule on every row.
  const broken = await findCrossRowErrors(
    services.db,
    { id: snapshot.id, companyId: principal.companyId },
    MAX_LISTED_ISSUES,
  );
  const now = services.clock.now();
  if (broken.count > 0) {
    const failed = await services.db.transaction().execute(async (trx) => {
      const marked = await markSnapshotFailed(trx, {
        id: snapshot.id,
        companyId: principal.companyId,
        failure: invalidRowsFailure(broken),
        now,
      });
      if (marked !== undefined) {
        await recordSnapshotEvent(trx, {
          companyId: principal.companyId,
          snapshotId: marked.id,
          type: "snapshot.failed",
          occurredAt: now,
        });
      }
      return marked;
    });
    // Thrown after the commit: the failure and its event are kept.
    if (failed !== undefined) throw invalidRows(broken.errors, broken.count);
  } else {
    const pending = await services.db.transaction().execute(async (trx) => {
      await lockSnapshotAcceptance(trx, campaign.id);
      const updated = await markSnapshotPending(trx, { id: snapshot.id, companyId: principal.companyId, now });
      // In the same transaction as `pending`: a crash can neither lose the job nor double it.
      if (updated !== undefined) {
        await enqueueApplySnapshot(trx, { id: updated.id, companyId: principal.companyId, campaignId: campaign.id });
      }
      return updated;
    });
    if (pending !== undefined) {
      return acknowledgementReply(
        202,
        snapshotMessages.finalized,
        presentSnapshot(pending, campaign.api_reference),
        false,
      );
    }
  }
  // A concurrent finalize (or chunk) changed the snapshot first: answer from the state it left.
  const current = await readSnapshot(services, principal, campaign, params.snapshotReference);
  const answer = settledAnswer(current, campaign.api_reference);
  if (answer !== undefined) return answer;
  throw new Error(`finalization of snapshot ${current.id} lost a race with no visible cause`);
};
