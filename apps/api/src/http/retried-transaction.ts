/**
 * A transaction run again when PostgreSQL chose it as the victim of a
 * deadlock or a serialization failure: nothing of it was kept, and the same
 * work usually succeeds at once. A `PATCH /debts/{id}` renaming a campaign
 * debt, for one, can deadlock with the worker applying a snapshot of that
 * campaign; it must not answer 500 for it.
 */
import { type Db, type DbTransaction, isRetryableConflict } from "@dc/db";

/** Runs `work` in a transaction, up to `attempts` times while it fails with a retryable conflict. */
export const retriedTransaction = async <T>(
  db: Db,
  work: (trx: DbTransaction) => Promise<T>,
  attempts = 3,
): Promise<T> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work);
    } catch (error) {
      if (attempt >= attempts || !isRetryableConflict(error)) throw error;
    }
  }
};
