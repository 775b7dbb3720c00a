/**
 * The longer statement budget of the few operations whose one statement
 * grows with the company's own backlog rather than with the request:
 * replaying an endpoint's failed deliveries, and settling its pending ones
 * when it is disabled or deleted. Within the transaction it is called in,
 * a statement may run for `DATABASE_BULK_STATEMENT_TIMEOUT_MS`, while a wait
 * for a lock is still bounded by `DATABASE_STATEMENT_TIMEOUT_MS`
 * (docs/decisions/0020): the work may be long, a wait behind someone else
 * may not.
 */
import { allowBulkStatements as raiseStatementTimeout, type Db } from "@dc/db";
import type { ApiConfig } from "../config.ts";

export const allowBulkStatements = async (
  trx: Db,
  config: Pick<ApiConfig, "databaseStatementTimeoutMs" | "databaseBulkStatementTimeoutMs">,
): Promise<void> => {
  await raiseStatementTimeout(trx, {
    statementTimeoutMs: config.databaseBulkStatementTimeoutMs,
    lockTimeoutMs: config.databaseStatementTimeoutMs,
  });
};
