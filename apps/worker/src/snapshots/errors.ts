/**
 * Why applying a snapshot stopped short, sorted by what a retry can do
 * (docs/decisions/0354): a `SnapshotUnprocessable`, a plan that breaks the
 * debt status transition table (`DebtStatus.IllegalTransition`) or a
 * PostgreSQL data exception will fail the same way again, so the snapshot is
 * failed at once with `processing_error`; anything else (a lost connection, a deadlock, an
 * earlier snapshot still in flight) is thrown for graphile-worker to retry.
 */
import {
  ConcurrentDebtChange,
  isDataException,
  isRetryableConflict,
  isUniqueViolation,
  violatedUniqueConstraint,
} from "@dc/db";
import { DebtStatus } from "@dc/domain";
import { Data } from "effect";

/** The stored snapshot cannot be applied however often it is tried (e.g. a chunk is missing). */
export class SnapshotUnprocessable extends Data.TaggedError("SnapshotUnprocessable")<{ readonly message: string }> {}

/** A snapshot of the same campaign accepted earlier is not applied yet; this one must wait its turn. */
export class WaitingForEarlierSnapshot extends Data.TaggedError("WaitingForEarlierSnapshot")<{
  readonly earlierSnapshotId: number;
  readonly message: string;
}> {}

/** Tells whether trying again cannot help. */
export const isPermanent = (error: unknown): boolean =>
  error instanceof SnapshotUnprocessable || error instanceof DebtStatus.IllegalTransition || isDataException(error);

/**
 * The unique keys of a campaign's debt identities. A new debt of the plan
 * that collides with one means an identity was given to another debt of the
 * campaign (an api update of its `internal_id`) after the plan read them.
 */
const CAMPAIGN_IDENTITY_KEYS: ReadonlySet<string> = new Set([
  "debts_campaign_internal_id_key",
  "debts_campaign_invoice_reference_key",
]);

/**
 * Serialization failures, deadlocks and debts changed under the plan (a
 * plan ended or a balance changed, or an identity taken since the read):
 * worth an immediate retry of the transaction, which plans again from what
 * it reads then.
 */
export const isTransactionConflict = (error: unknown): boolean => {
  if (isUniqueViolation(error)) return CAMPAIGN_IDENTITY_KEYS.has(violatedUniqueConstraint(error) ?? "");
  return isRetryableConflict(error) || error instanceof ConcurrentDebtChange;
};
