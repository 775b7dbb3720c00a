/**
 * Claims engine followups left `in_progress` longer than the send timeout
 * (a worker stopped between its send and its outcome, docs/decisions/0605),
 * oldest first, through `followups_engine_in_progress_idx`, `for update
 * skip locked`. Across companies by design, like the live sweep: the
 * recovery's cost is the stale rows.
 */
import { sql } from "kysely";
import type { DbTransaction } from "../executor.ts";
import type { ClaimedFollowup } from "./claim-due-followups.ts";

/** Claims at most `limit` followups `in_progress` since before `olderThan` (the injected clock). */
export const claimStaleSends = async (
  trx: DbTransaction,
  olderThan: Date,
  limit: number,
): Promise<ReadonlyArray<ClaimedFollowup>> => {
  const { rows } = await sql<{ company_id: number; id: number }>`
    select f.company_id, f.id
    from followups f
    where f.status = 'in_progress' and f.enrollment_id is not null and f.updated_at < ${olderThan.toISOString()}::timestamptz
    order by f.updated_at, f.id
    limit ${limit}
    for update skip locked`.execute(trx);
  return rows.map((row) => ({ companyId: row.company_id, followupId: row.id }));
};
