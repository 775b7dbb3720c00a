/**
 * When the engine next has something to do: the earliest `scheduled_at` of
 * a due-index followup or `paused_until` of a timed pause, on the live
 * indexes (one probe each) or for one sandbox company up to a bound.
 */
import { sql } from "kysely";
import type { Db } from "../executor.ts";

/** The earliest live followup time or timed pause end, or null when nothing waits. */
export const nextLiveWorkAt = async (db: Db): Promise<Date | null> => {
  const { rows } = await sql<{ at: Date | null }>`
    select least(
      (select f.scheduled_at from followups f
        where f.status = 'scheduled' and f.enrollment_id is not null and not f.sandbox
        order by f.scheduled_at, f.id limit 1),
      (select e.paused_until from enrollments e
        where e.state = 'paused' and e.paused_until is not null
        order by e.paused_until limit 1)
    ) as at`.execute(db);
  return rows[0]?.at ?? null;
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
