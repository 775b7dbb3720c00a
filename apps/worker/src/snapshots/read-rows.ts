/**
 * Turns a snapshot's stored chunks back into validated rows: per-row rules
 * with snapshot-wide row indexes (`Snapshot.validateRows`) and the
 * normalisation the database needs before planning: installment `paid_at`
 * in its canonical instant form (docs/decisions/0356). The worker reads one
 * chunk at a time (`readChunkRows`); the rules across rows run in the
 * database over every stored row (`findCrossRowErrors`).
 */
import { canonicalInstant, type StoredChunk } from "@dc/db";
import { type PaymentPlan, Snapshot } from "@dc/domain";
import * as JsonText from "@dc/json-text";
import { SnapshotUnprocessable } from "./errors.ts";

export interface ReadRows {
  /** Valid rows in snapshot order, normalised. */
  readonly rows: ReadonlyArray<Snapshot.ValidRow>;
  /** Every per-row rule violation found, in row order. */
  readonly errors: ReadonlyArray<Snapshot.RowError>;
}

/**
 * The plan with each `paid_at` in its canonical instant form. The row rules
 * (`Dates.IsoDateTime`) already keep instants within the years PostgreSQL
 * stores, so every one has a canonical form.
 */
const normalisePlan = (plan: PaymentPlan.MinorPlan): PaymentPlan.MinorPlan => {
  const installments = plan.installments.map((item) => {
    if (item.paidAt === null) return item;
    const paidAt = canonicalInstant(item.paidAt);
    if (paidAt === undefined) {
      throw new SnapshotUnprocessable({
        message: `paid_at "${item.paidAt}" passed the row rules but has no canonical form`,
      });
    }
    return paidAt === item.paidAt ? item : { ...item, paidAt };
  });
  return { ...plan, installments };
};

/** The `rows` array of a stored body, or `undefined` when the body is purged or not `{"rows": [...]}`. */
const storedRows = (body: string | null): ReadonlyArray<unknown> | undefined => {
  if (body === null) return undefined;
  let parsed: unknown;
  try {
    parsed = JsonText.parse(body);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null || !("rows" in parsed)) return undefined;
  return Array.isArray(parsed.rows) ? (parsed.rows as ReadonlyArray<unknown>) : undefined;
};

/** The rows of one chunk and where the next chunk's rows start. */
export interface ChunkRows extends ReadRows {
  /** Rows the chunk holds, valid or not: the next chunk's first row index is this chunk's plus this. */
  readonly rowCount: number;
}

/**
 * Validates the rows of the stored chunk `chunk` whose first row has the
 * snapshot-wide index `firstRowIndex`. Throws `SnapshotUnprocessable` when
 * its body is not `{"rows": [...]}` (or was purged, which only happens to
 * settled snapshots).
 */
export const readChunkRows = (chunk: StoredChunk, firstRowIndex: number): ChunkRows => {
  const raw = storedRows(chunk.body);
  if (raw === undefined) {
    throw new SnapshotUnprocessable({ message: `chunk ${chunk.chunk_index} does not hold an array of rows` });
  }
  const validated = Snapshot.validateRows(raw, { firstRowIndex });
  const rows = validated.rows.map((row) =>
    row.paymentPlan === null ? row : { ...row, paymentPlan: normalisePlan(row.paymentPlan) },
  );
  return { rows, errors: validated.errors, rowCount: raw.length };
};

/**
 * Validates the rows of `chunks` (ordered by `chunk_index`) at once: the
 * whole snapshot in memory, for tests that compare the worker with
 * `Reconciliation.plan`. Throws `SnapshotUnprocessable` when the stored
 * chunks themselves are unusable: a gap in the indexes, a count that
 * differs from `expectedChunks`, or a chunk `readChunkRows` refuses.
 */
export const readSnapshotRows = (chunks: ReadonlyArray<StoredChunk>, expectedChunks: number): ReadRows => {
  if (chunks.length !== expectedChunks) {
    throw new SnapshotUnprocessable({ message: `expected ${expectedChunks} stored chunks, found ${chunks.length}` });
  }
  const rows: Array<Snapshot.ValidRow> = [];
  const errors: Array<Snapshot.RowError> = [];
  let firstRowIndex = 0;
  chunks.forEach((chunk, i) => {
    if (chunk.chunk_index !== i) throw new SnapshotUnprocessable({ message: `chunk ${i} is missing` });
    const read = readChunkRows(chunk, firstRowIndex);
    rows.push(...read.rows);
    errors.push(...read.errors);
    firstRowIndex += read.rowCount;
  });
  return { rows, errors: errors.sort((a, b) => a.row_index - b.row_index) };
};
