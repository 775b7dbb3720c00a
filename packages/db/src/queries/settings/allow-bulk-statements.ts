/**
 * Raises the statement timeout of the calling transaction to
 * `statementTimeoutMs` while keeping lock waits bounded by `lockTimeoutMs`
 * (docs/decisions/0020): both are `set_config(..., true)`, so they end with
 * the transaction.
 */
import { sql } from "kysely";
import type { Db } from "../executor.ts";

export const allowBulkStatements = async (
  trx: Db,
  timeouts: { readonly statementTimeoutMs: number; readonly lockTimeoutMs: number },
): Promise<void> => {
  await sql`select set_config('statement_timeout', ${String(timeouts.statementTimeoutMs)}, true),
    set_config('lock_timeout', ${String(timeouts.lockTimeoutMs)}, true)`.execute(trx);
};
