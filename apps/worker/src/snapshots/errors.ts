/**
 * Why applying a snapshot stopped short, sorted by what a retry can do
 * (docs/decisions/0354): a `SnapshotUnprocessable` or a PostgreSQL data
 * exception will fail the same way again, so the snapshot is failed at once
 * with `processing_error`; anything else (a lost connection, a deadlock, an
 * earlier snapshot still in flight) is thrown for graphile-worker to retry.
 */
import { ConcurrentDebtChange } from "@dc/db";
import { Data } from "effect";

/** The stored snapshot cannot be applied however often it is tried (e.g. a chunk is missing). */
export class SnapshotUnprocessable extends Data.TaggedError("SnapshotUnprocessable")<{ readonly message: string }> {}

/** A snapshot of the same campaign accepted earlier is not applied yet; this one must wait its turn. */
export class WaitingForEarlierSnapshot extends Data.TaggedError("WaitingForEarlierSnapshot")<{
  readonly earlierSnapshotId: number;
  readonly message: string;
}> {}

const sqlState = (error: unknown): string | undefined => {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  const code = (error as { code: unknown }).code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
};

/** Tells whether trying again cannot help. */
export const isPermanent = (error: unknown): boolean =>
  error instanceof SnapshotUnprocessable || (sqlState(error)?.startsWith("22") ?? false);

/** Serialization failures, deadlocks and debts changed under the plan: worth an immediate retry of the transaction. */
export const isTransactionConflict = (error: unknown): boolean => {
  const code = sqlState(error);
  return code === "40001" || code === "40P01" || error instanceof ConcurrentDebtChange;
};
