/**
 * Timelines as administrators write them (docs/decisions/0620): a timeline's
 * sending window may follow each debtor's own time zone (`timezone` null, as
 * a definition's `scheduling.time_zone` null says), and a company has at most
 * one default timeline among those not archived.
 */
import { type Kysely, sql } from "kysely";

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`alter table timelines alter column timezone drop not null`.execute(db);
  // Where several were marked default, the oldest stays so.
  await sql`
    update timelines t set is_default = false
    where t.is_default and t.archived_at is null and exists (
      select from timelines older
      where older.company_id = t.company_id and older.is_default and older.archived_at is null and older.id < t.id
    )
  `.execute(db);
  await sql`
    create unique index timelines_one_default_idx on timelines (company_id) where is_default and archived_at is null
  `.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`drop index if exists timelines_one_default_idx`.execute(db);
  await sql`
    alter table timelines alter column timezone type text using coalesce(timezone, 'Europe/Paris'),
      alter column timezone set not null
  `.execute(db);
};
