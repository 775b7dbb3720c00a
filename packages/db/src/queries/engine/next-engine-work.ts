/**
 * When the engine next has something to do: one statement of index probes
 * (a due-index followup's `scheduled_at`, a timed pause's end, a send left
 * `in_progress` past the timeout) for the live companies, or the earliest
 * due time of one sandbox company up to a bound.
 */
import { sql } from "kysely";
import type { Db } from "../executor.ts";

export interface LiveWork {
  /** The earliest live followup time or timed pause end, or null when nothing waits. */
  readonly nextAt: Date | null;
  /** A send `in_progress` since before the timeout waits for the recovery. */
  readonly staleSends: boolean;
}

/** What the live sweep has to do; `staleBefore` is the send timeout's bound (the injected clock). */
export const findLiveWork = async (db: Db, staleBefore: Date): Promise<LiveWork> => {
  const { rows } = await sql<{ at: Date | null; stale: boolean }>`
    select least(
      (select f.scheduled_at from followups f
        where f.status = 'scheduled' and f.enrollment_id is not null and not f.sandbox
        order by f.scheduled_at, f.id limit 1),
      (select e.paused_until from enrollments e
        where e.state = 'paused' and e.paused_until is not null
        order by e.paused_until limit 1)
    ) as at,
    exists (
      select 1 from followups f
      where f.status = 'in_progress' and f.enrollment_id is not null and f.updated_at < ${staleBefore.toISOString()}::timestamptz
    ) as stale`.execute(db);
  return { nextAt: rows[0]?.at ?? null, staleSends: rows[0]?.stale ?? false };
};

/** The earliest time at or before `until` a sandbox company's followup or timed pause is due, or null. */
export const nextSandboxWorkAt = async (db: Db, companyId: number, until: Date): Promise<Date | null> => {
  const bound = until.toISOString();
  const { rows } = await sql<{ at: Date | null }>`
    select least(
      (select f.scheduled_at from followups f
        where f.company_id = ${companyId} and f.status = 'scheduled' and f.enrollment_id is not null and f.sandbox
          and f.scheduled_at <= ${bound}::timestamptz
        order by f.scheduled_at, f.id limit 1),
      (select e.paused_until from enrollments e
        where e.company_id = ${companyId} and e.state = 'paused' and e.paused_until <= ${bound}::timestamptz
        order by e.paused_until limit 1)
    ) as at`.execute(db);
  return rows[0]?.at ?? null;
};
