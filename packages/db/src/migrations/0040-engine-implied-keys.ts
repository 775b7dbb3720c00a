/**
 * The engine's rows keep only the foreign keys that say something their
 * other keys do not (docs/decisions/0600). Every key is checked once per row
 * written, and a snapshot enrolls and schedules thousands of rows in its
 * transaction:
 *
 * - an enrollment's company is its debt's (the key to `debts (company_id,
 *   id)` already proves the company exists), and its timeline is its
 *   version's: one key to `timeline_versions (company_id, timeline_id, id)`
 *   replaces the company, timeline and version keys, and also proves the
 *   version belongs to the timeline, which the separate keys did not;
 * - a followup's company is its debt's, for the same reason.
 *
 * Deleting a company still removes these rows: through its debts' cascade.
 */
import { type Kysely, sql } from "kysely";

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
    alter table timeline_versions
      add constraint timeline_versions_timeline_key unique (company_id, timeline_id, id)
  `.execute(db);
  await sql`
    alter table enrollments
      drop constraint enrollments_company_id_fkey,
      drop constraint enrollments_company_id_timeline_id_fkey,
      drop constraint enrollments_company_id_timeline_version_id_fkey,
      add constraint enrollments_timeline_version_fkey foreign key (company_id, timeline_id, timeline_version_id)
        references timeline_versions (company_id, timeline_id, id)
  `.execute(db);
  await sql`drop index enrollments_timeline_idx`.execute(db);
  await sql`drop index enrollments_version_idx`.execute(db);
  await sql`
    create index enrollments_timeline_version_idx on enrollments (company_id, timeline_id, timeline_version_id)
  `.execute(db);
  await sql`alter table followups drop constraint followups_company_id_fkey`.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
    alter table followups
      add constraint followups_company_id_fkey foreign key (company_id) references companies (id) on delete cascade
  `.execute(db);
  await sql`drop index if exists enrollments_timeline_version_idx`.execute(db);
  await sql`create index enrollments_timeline_idx on enrollments (company_id, timeline_id)`.execute(db);
  await sql`create index enrollments_version_idx on enrollments (company_id, timeline_version_id)`.execute(db);
  await sql`
    alter table enrollments
      drop constraint enrollments_timeline_version_fkey,
      add constraint enrollments_company_id_fkey foreign key (company_id) references companies (id) on delete cascade,
      add constraint enrollments_company_id_timeline_id_fkey foreign key (company_id, timeline_id)
        references timelines (company_id, id),
      add constraint enrollments_company_id_timeline_version_id_fkey foreign key (company_id, timeline_version_id)
        references timeline_versions (company_id, id)
  `.execute(db);
  await sql`alter table timeline_versions drop constraint timeline_versions_timeline_key`.execute(db);
};
