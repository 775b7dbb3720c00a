/**
 * The keys of child rows name their company first (DESIGN.md 6): a
 * timeline's timepoints, a timepoint's actions, a plan's installments and a
 * snapshot's chunks were unique per parent id alone, and their foreign keys
 * named the parent by id alone, so neither carried the distribution column
 * and neither said that the child and its parent belong to one company.
 *
 * - `timeline_timepoints`, `timeline_actions`, `installments`: the unique
 *   key is (company_id, parent, position). The `(company_id, parent)`
 *   lookup indexes of 0001 are prefixes of it and go.
 * - `snapshot_chunks`: the primary key is (company_id, snapshot_id,
 *   chunk_index).
 * - Timepoints, actions and chunks reference their parent by (company_id,
 *   id), over a new unique key of the parent (it replaces the parent's
 *   `(company_id, id)` index where there was one): a child of another
 *   company's parent cannot be written, and the cascade of a deleted parent
 *   finds its children through the child's key instead of scanning the
 *   table (the key no longer starts with the parent's id).
 *   `installments.payment_plan_id` is checked per statement within the
 *   company since 0013, and keeps that.
 */
import { type Kysely, sql } from "kysely";

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
create unique index timelines_company_id_key on timelines (company_id, id);
drop index timelines_company_idx;
create unique index timeline_timepoints_company_id_key on timeline_timepoints (company_id, id);
create unique index snapshots_company_id_key on snapshots (company_id, id);

alter table timeline_timepoints drop constraint timeline_timepoints_timeline_id_position_key;
alter table timeline_timepoints add constraint timeline_timepoints_company_timeline_position_key
  unique (company_id, timeline_id, position);
drop index timeline_timepoints_company_idx;
alter table timeline_timepoints drop constraint timeline_timepoints_timeline_id_fkey;
alter table timeline_timepoints add constraint timeline_timepoints_timeline_fkey
  foreign key (company_id, timeline_id) references timelines (company_id, id) on delete cascade;

alter table timeline_actions drop constraint timeline_actions_timepoint_id_position_key;
alter table timeline_actions add constraint timeline_actions_company_timepoint_position_key
  unique (company_id, timepoint_id, position);
drop index timeline_actions_company_idx;
alter table timeline_actions drop constraint timeline_actions_timepoint_id_fkey;
alter table timeline_actions add constraint timeline_actions_timepoint_fkey
  foreign key (company_id, timepoint_id) references timeline_timepoints (company_id, id) on delete cascade;

alter table installments drop constraint installments_payment_plan_id_position_key;
alter table installments add constraint installments_company_plan_position_key
  unique (company_id, payment_plan_id, position);
drop index installments_company_idx;

alter table snapshot_chunks drop constraint snapshot_chunks_pkey;
alter table snapshot_chunks add primary key (company_id, snapshot_id, chunk_index);
alter table snapshot_chunks drop constraint snapshot_chunks_snapshot_id_fkey;
alter table snapshot_chunks add constraint snapshot_chunks_snapshot_fkey
  foreign key (company_id, snapshot_id) references snapshots (company_id, id) on delete cascade;
`.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
alter table snapshot_chunks drop constraint snapshot_chunks_snapshot_fkey;
alter table snapshot_chunks add constraint snapshot_chunks_snapshot_id_fkey
  foreign key (snapshot_id) references snapshots (id) on delete cascade;
alter table snapshot_chunks drop constraint snapshot_chunks_pkey;
alter table snapshot_chunks add primary key (snapshot_id, chunk_index);

create index installments_company_idx on installments (company_id, payment_plan_id);
alter table installments drop constraint installments_company_plan_position_key;
alter table installments add constraint installments_payment_plan_id_position_key unique (payment_plan_id, position);

alter table timeline_actions drop constraint timeline_actions_timepoint_fkey;
alter table timeline_actions add constraint timeline_actions_timepoint_id_fkey
  foreign key (timepoint_id) references timeline_timepoints (id) on delete cascade;
create index timeline_actions_company_idx on timeline_actions (company_id, timepoint_id);
alter table timeline_actions drop constraint timeline_actions_company_timepoint_position_key;
alter table timeline_actions add constraint timeline_actions_timepoint_id_position_key unique (timepoint_id, position);

alter table timeline_timepoints drop constraint timeline_timepoints_timeline_fkey;
alter table timeline_timepoints add constraint timeline_timepoints_timeline_id_fkey
  foreign key (timeline_id) references timelines (id) on delete cascade;
create index timeline_timepoints_company_idx on timeline_timepoints (company_id, timeline_id);
alter table timeline_timepoints drop constraint timeline_timepoints_company_timeline_position_key;
alter table timeline_timepoints add constraint timeline_timepoints_timeline_id_position_key unique (timeline_id, position);

drop index snapshots_company_id_key;
drop index timeline_timepoints_company_id_key;
create index timelines_company_idx on timelines (company_id, id);
drop index timelines_company_id_key;
`.execute(db);
};
