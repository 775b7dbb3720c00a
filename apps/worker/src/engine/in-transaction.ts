/**
 * Runs engine work in a transaction, and again (at most three times in all)
 * when it loses to a concurrent transaction (a deadlock, a serialization
 * failure): the work is idempotent up to its commit.
 */
import type { DbTransaction } from "@dc/db";
import { isTransactionConflict } from "../snapshots/errors.ts";
import type { EngineDependencies } from "./engine-dependencies.ts";

const ATTEMPTS = 3;

export const inTransaction = async <T>(
  dependencies: Pick<EngineDependencies, "db">,
  work: (trx: DbTransaction) => Promise<T>,
): Promise<T> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await dependencies.db.transaction().execute(work);
    } catch (error) {
      if (attempt >= ATTEMPTS || !isTransactionConflict(error)) throw error;
    }
  }
};
