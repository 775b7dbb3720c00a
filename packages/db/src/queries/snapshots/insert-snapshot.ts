/**
 * Inserts a snapshot unless its reference is taken. The unique key
 * (company_id, campaign_id, snapshot_reference) decides between concurrent
 * requests: exactly one insert returns the row; the others get `undefined`
 * (after the winner commits) and compare against the stored snapshot.
 */
import type { Kysely } from "kysely";
import type { Database, Snapshot } from "../../schema.ts";

export interface NewSnapshot {
  readonly companyId: number;
  readonly campaignId: number;
  readonly snapshotReference: string;
  readonly deliveryMode: "staged" | "one_request";
  readonly status: "pending" | "uploading";
  /** SHA-256 of the exact one-request body; null for staged delivery. */
  readonly bodySha256: Buffer | null;
  /** Null for a staged snapshot opened by its chunk 0: no count declared yet (docs/decisions/0580). */
  readonly expectedRowCount: number | null;
  readonly receivedRowCount: number;
  readonly receivedChunkCount: number;
  readonly nextChunkIndex: number;
  readonly integrationClientPk: number;
  readonly now: Date;
}

export const insertSnapshotUnlessExists = (
  db: Kysely<Database>,
  snapshot: NewSnapshot,
): Promise<Snapshot | undefined> =>
  db
    .insertInto("snapshots")
    .values({
      company_id: snapshot.companyId,
      campaign_id: snapshot.campaignId,
      snapshot_reference: snapshot.snapshotReference,
      delivery_mode: snapshot.deliveryMode,
      status: snapshot.status,
      body_sha256: snapshot.bodySha256,
      expected_row_count: snapshot.expectedRowCount,
      received_row_count: snapshot.receivedRowCount,
      received_chunk_count: snapshot.receivedChunkCount,
      next_chunk_index: snapshot.nextChunkIndex,
      integration_client_pk: snapshot.integrationClientPk,
      finalized_at: snapshot.status === "pending" ? snapshot.now : null,
      created_at: snapshot.now,
      updated_at: snapshot.now,
    })
    .onConflict((conflict) => conflict.columns(["company_id", "campaign_id", "snapshot_reference"]).doNothing())
    .returningAll()
    .executeTakeFirst();
