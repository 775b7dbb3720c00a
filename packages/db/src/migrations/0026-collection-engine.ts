/**
 * The collection engine's tables (docs/decisions/0600): sandbox companies and
 * their clocks, immutable timeline versions, one enrollment per debt on a
 * timeline, the engine's columns on followups, the guard's decisions, opt-outs
 * per channel, and the messages sandbox adapters keep instead of sending.
 *
 * The due-work indexes are partial on `status = 'scheduled'`, so a sweep reads
 * only what is due, whatever the number of debts waiting for later steps.
 * Live and sandbox followups have separate indexes: a sandbox company's
 * followups are due on its own clock, never on the wall clock.
 */
import { type Kysely, sql } from "kysely";

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
    alter table companies
      add column sandbox boolean not null default false,
      add column sandbox_now timestamptz,
      add column time_zone text not null default 'Europe/Paris',
      add column engine_settings jsonb not null default '{}',
      add constraint companies_sandbox_clock check (sandbox = (sandbox_now is not null))
  `.execute(db);

  await sql`
    create table timeline_versions (
      id bigint generated always as identity,
      company_id bigint not null references companies (id) on delete cascade,
      timeline_id bigint not null,
      version integer not null check (version >= 1),
      definition jsonb not null,
      created_at timestamptz not null default now(),
      primary key (company_id, id),
      unique (company_id, timeline_id, version),
      foreign key (company_id, timeline_id) references timelines (company_id, id) on delete cascade
    )
  `.execute(db);
  await sql`
    alter table timelines add column current_version_id bigint,
      add constraint timelines_current_version_id_fkey foreign key (company_id, current_version_id)
        references timeline_versions (company_id, id)
  `.execute(db);
  await sql`create index timelines_current_version_idx on timelines (company_id, current_version_id)`.execute(db);

  // Version 1 of every existing timeline: its scheduling and its actions in run order.
  await sql`
    with steps as (
      select tp.timeline_id,
        jsonb_agg(
          jsonb_build_object(
            'day_offset', tp.day_offset, 'channel', ta.channel,
            'configuration', ta.configuration, 'content', ta.content
          )
          order by tp.day_offset, tp.position, ta.position
        ) as steps
      from timeline_timepoints tp
      join timeline_actions ta on ta.timepoint_id = tp.id
      group by tp.timeline_id
    ),
    inserted as (
      insert into timeline_versions (company_id, timeline_id, version, definition)
      select t.company_id, t.id, 1,
        jsonb_build_object(
          'scheduling', jsonb_build_object(
            'time_zone', t.timezone,
            'weekdays', to_jsonb(t.allowed_weekdays),
            'window', jsonb_build_object('start', to_char(t.window_start, 'HH24:MI'), 'end', to_char(t.window_end, 'HH24:MI'))
          ),
          'steps', coalesce(s.steps, '[]'::jsonb)
        )
      from timelines t left join steps s on s.timeline_id = t.id
      returning id, timeline_id
    )
    update timelines t set current_version_id = inserted.id from inserted where inserted.timeline_id = t.id
  `.execute(db);

  await sql`
    create table enrollments (
      id bigint generated always as identity,
      company_id bigint not null references companies (id) on delete cascade,
      debt_id bigint not null,
      timeline_id bigint not null,
      timeline_version_id bigint not null,
      state text not null check (state in ('active', 'paused', 'stopped', 'completed')),
      reason text,
      anchor_at timestamptz,
      paused_until timestamptz,
      next_step integer not null default 0,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (company_id, id),
      unique (company_id, debt_id),
      foreign key (company_id, debt_id) references debts (company_id, id) on delete cascade,
      foreign key (company_id, timeline_id) references timelines (company_id, id),
      foreign key (company_id, timeline_version_id) references timeline_versions (company_id, id)
    )
  `.execute(db);
  await sql`create index enrollments_timeline_idx on enrollments (company_id, timeline_id)`.execute(db);
  await sql`create index enrollments_version_idx on enrollments (company_id, timeline_version_id)`.execute(db);
  await sql`create index enrollments_company_state_idx on enrollments (company_id, state)`.execute(db);
  await sql`
    create index enrollments_timed_pause_idx on enrollments (paused_until) where state = 'paused' and paused_until is not null
  `.execute(db);

  await sql`
    alter table followups
      add column enrollment_id bigint,
      add column step integer,
      add column attempt integer not null default 1,
      add column due_at timestamptz,
      add column sandbox boolean not null default false,
      add column recipient text,
      add column provider_message_id text,
      add column guard_reason text,
      add column guard_detail text,
      add constraint followups_enrollment_id_fkey foreign key (company_id, enrollment_id)
        references enrollments (company_id, id) on delete cascade
  `.execute(db);
  await sql`
    create unique index followups_enrollment_step_attempt_idx on followups (company_id, enrollment_id, step, attempt)
    where enrollment_id is not null
  `.execute(db);
  await sql`
    create index followups_live_due_idx on followups (scheduled_at, id)
    where status = 'scheduled' and enrollment_id is not null and not sandbox
  `.execute(db);
  await sql`
    create index followups_sandbox_due_idx on followups (company_id, scheduled_at, id)
    where status = 'scheduled' and enrollment_id is not null and sandbox
  `.execute(db);
  await sql`
    create index followups_engine_in_progress_idx on followups (updated_at, id)
    where status = 'in_progress' and enrollment_id is not null
  `.execute(db);

  await sql`
    create table followup_decisions (
      id bigint generated always as identity,
      company_id bigint not null references companies (id) on delete cascade,
      followup_id bigint not null,
      decided_at timestamptz not null,
      decision text not null check (decision in ('defer', 'block')),
      reason text not null,
      detail text,
      deferred_until timestamptz,
      primary key (company_id, id),
      foreign key (company_id, followup_id) references followups (company_id, id) on delete cascade
    )
  `.execute(db);
  await sql`create index followup_decisions_followup_idx on followup_decisions (company_id, followup_id, id)`.execute(
    db,
  );

  await sql`
    create table channel_opt_outs (
      company_id bigint not null references companies (id) on delete cascade,
      debt_id bigint not null,
      channel text not null check (channel in ('ai_call', 'email', 'sms', 'whatsapp', 'voicemail', 'manual_call', 'postmail')),
      source text not null,
      created_at timestamptz not null default now(),
      primary key (company_id, debt_id, channel),
      foreign key (company_id, debt_id) references debts (company_id, id) on delete cascade
    )
  `.execute(db);

  await sql`
    create table sandbox_messages (
      id bigint generated always as identity,
      company_id bigint not null references companies (id) on delete cascade,
      debt_id bigint not null,
      followup_id bigint not null,
      channel text not null,
      recipient text not null,
      subject text,
      body text not null,
      outcome text not null,
      sent_at timestamptz not null,
      created_at timestamptz not null default now(),
      primary key (company_id, id),
      foreign key (company_id, debt_id) references debts (company_id, id) on delete cascade,
      foreign key (company_id, followup_id) references followups (company_id, id) on delete cascade
    )
  `.execute(db);
  await sql`create index sandbox_messages_followup_idx on sandbox_messages (company_id, followup_id)`.execute(db);
  await sql`create index sandbox_messages_debt_idx on sandbox_messages (company_id, debt_id, id)`.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`drop table if exists sandbox_messages, channel_opt_outs, followup_decisions`.execute(db);
  await sql`
    alter table followups
      drop column if exists enrollment_id, drop column if exists step, drop column if exists attempt,
      drop column if exists due_at, drop column if exists sandbox, drop column if exists recipient,
      drop column if exists provider_message_id, drop column if exists guard_reason, drop column if exists guard_detail
  `.execute(db);
  await sql`drop table if exists enrollments`.execute(db);
  await sql`alter table timelines drop column if exists current_version_id`.execute(db);
  await sql`drop table if exists timeline_versions`.execute(db);
  await sql`
    alter table companies
      drop constraint if exists companies_sandbox_clock,
      drop column if exists sandbox, drop column if exists sandbox_now,
      drop column if exists time_zone, drop column if exists engine_settings
  `.execute(db);
};
