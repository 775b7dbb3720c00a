/**
 * Restarts of an enrollment (docs/decisions/0601): a debt keeps one
 * enrollment row, and each restart begins a new `run` of it. A followup the
 * engine creates records the run it belongs to, so a restarted timeline
 * schedules its step 0 again while the earlier run's followups stay as the
 * debt's contact history, and a send that finishes after a restart cannot
 * schedule the next step of the run it belonged to.
 */
import { type Kysely, sql } from "kysely";

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`alter table enrollments add column run integer not null default 1 check (run >= 1)`.execute(db);
  await sql`alter table followups add column run integer`.execute(db);
  await sql`update followups set run = 1 where enrollment_id is not null`.execute(db);
  await sql`
    alter table followups add constraint followups_engine_run check ((enrollment_id is null) = (run is null))
  `.execute(db);
  await sql`drop index followups_enrollment_step_attempt_idx`.execute(db);
  await sql`
    create unique index followups_enrollment_step_attempt_idx on followups (company_id, enrollment_id, run, step, attempt)
    where enrollment_id is not null
  `.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`drop index if exists followups_enrollment_step_attempt_idx`.execute(db);
  await sql`alter table followups drop constraint if exists followups_engine_run, drop column if exists run`.execute(
    db,
  );
  await sql`alter table enrollments drop column if exists run`.execute(db);
  await sql`
    create unique index followups_enrollment_step_attempt_idx on followups (company_id, enrollment_id, step, attempt)
    where enrollment_id is not null
  `.execute(db);
};
