/**
 * Snapshot application at scale (docs/decisions/0358):
 *
 * - `debts_campaign_idx`: a campaign's debts in one index range. The
 *   per-campaign identity keys of 0001 are partial (one per stream), so
 *   without it loading "every debt of campaign X" scans every company's debts.
 * - `debts` fillfactor 50: a snapshot restates every balance of a campaign,
 *   and a balance change touches no indexed column, so with room left on the
 *   page PostgreSQL updates in place (HOT) instead of adding an entry to each
 *   of the table's seven indexes, at a fraction of the server CPU. Applies
 *   to pages as they are written (full pages keep their layout until
 *   rewritten); no lock beyond SHARE UPDATE EXCLUSIVE, no rewrite.
 */
import { type Kysely, sql } from "kysely";

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
create index debts_campaign_idx on debts (company_id, campaign_id, id) where campaign_id is not null;
alter table debts set (fillfactor = 50);
`.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
alter table debts reset (fillfactor);
drop index if exists debts_campaign_idx;
`.execute(db);
};
