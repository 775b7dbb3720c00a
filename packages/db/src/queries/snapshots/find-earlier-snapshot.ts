/**
 * The ordering guard of snapshot application (docs/decisions/0353): a
 * campaign's snapshots apply in acceptance order (`accepted_seq`). The named
 * queue runs them one at a time, but a failed attempt waiting for its retry
 * does not hold the queue, so a later snapshot could otherwise overtake it
 * and then be overwritten by older data.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../../schema.ts";
import type { SnapshotRowKey } from "./mark-snapshot.ts";

/**
 * The id of a snapshot of the same campaign accepted before `snapshot`
 * that is still `pending` or `processing` and still has a live
 * `apply_snapshot` job (waiting, running or due for a retry), or
 * `undefined`. A snapshot whose job is gone or spent does not block the
 * campaign forever.
 */
export const findEarlierOpenSnapshot = async (
  db: Kysely<Database>,
  snapshot: SnapshotRowKey,
): Promise<number | undefined> => {
  const { rows } = await sql<{ id: number }>`
    select earlier.id
    from snapshots s
    join snapshots earlier
      on earlier.company_id = s.company_id and earlier.campaign_id = s.campaign_id and earlier.accepted_seq < s.accepted_seq
    join graphile_worker.jobs j on j.key = 'apply_snapshot:' || earlier.id and j.task_identifier = 'apply_snapshot'
    where s.company_id = ${snapshot.companyId} and s.id = ${snapshot.id} and earlier.status in ('pending', 'processing')
      and (j.attempts < j.max_attempts or j.locked_at is not null)
    order by earlier.accepted_seq
    limit 1
  `.execute(db);
  return rows[0]?.id;
};
