/**
 * Closes an `uploading` staged snapshot: `pending` when its rows passed the
 * cross-chunk rules, `failed` with a `failure` when they did not. Both
 * updates are conditional on `uploading`, so of two concurrent finalizations
 * one wins and the other reads the result.
 */
import { type Kysely, sql } from "kysely";
import type { Database, Snapshot } from "../../schema.ts";

/**
 * `uploading` -> `pending`, only with every declared row received; a
 * snapshot whose count is undeclared declares the rows it received
 * (docs/decisions/0580). The
 * acceptance sequence is drawn again: a staged snapshot is accepted when
 * finalized, which is also when its job joins the campaign's queue.
 */
export const markSnapshotPending = (
  db: Kysely<Database>,
  snapshot: { readonly id: number; readonly companyId: number; readonly now: Date },
): Promise<Snapshot | undefined> =>
  db
    .updateTable("snapshots")
    .set({
      status: "pending",
      expected_row_count: (eb) => eb.fn.coalesce("expected_row_count", "received_row_count"),
      finalized_at: snapshot.now,
      updated_at: snapshot.now,
      accepted_seq: sql<number>`default`,
    })
    .where("company_id", "=", snapshot.companyId)
    .where("id", "=", snapshot.id)
    .where("status", "=", "uploading")
    .where((eb) => eb("received_row_count", "=", eb.fn.coalesce("expected_row_count", "received_row_count")))
    .returningAll()
    .executeTakeFirst();

/** `uploading` -> `failed` with `failure` (rows break a rule across chunks; no job, nothing applied). */
export const markSnapshotFailed = (
  db: Kysely<Database>,
  snapshot: { readonly id: number; readonly companyId: number; readonly failure: unknown; readonly now: Date },
): Promise<Snapshot | undefined> =>
  db
    .updateTable("snapshots")
    .set({
      status: "failed",
      expected_row_count: (eb) => eb.fn.coalesce("expected_row_count", "received_row_count"),
      failure: JSON.stringify(snapshot.failure),
      finalized_at: snapshot.now,
      completed_at: snapshot.now,
      updated_at: snapshot.now,
    })
    .where("company_id", "=", snapshot.companyId)
    .where("id", "=", snapshot.id)
    .where("status", "=", "uploading")
    .returningAll()
    .executeTakeFirst();
