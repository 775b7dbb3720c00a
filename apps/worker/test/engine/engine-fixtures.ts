/**
 * Engine test fixtures: a company (live or sandbox) with a creditor and a
 * timeline written through `insertTimeline`, debts enrolled on it with the
 * api's statements, the engine's dependencies on a manual clock with the
 * sandbox provider, and readers of the resulting rows.
 */
import { type Database, enrollDebts, insertTimeline } from "@dc/db";
import type { TimelineDefinition } from "@dc/domain";
import { manualClock } from "@dc/runtime";
import { type Kysely, sql } from "kysely";
import { pino } from "pino";
import type { ChannelAdapters } from "../../src/channels/channel-adapter.ts";
import { sandboxAdapter } from "../../src/channels/sandbox-adapter.ts";
import type { EngineDependencies } from "../../src/engine/engine-dependencies.ts";
import { DEFAULT_ENGINE_SETTINGS, type EngineSettings } from "../../src/engine/engine-settings.ts";
import { testIds, testLinks } from "../snapshot-fixtures.ts";

/** Tuesday 2030-01-08 10:00 in Paris: inside a weekday 09:00-19:00 window. */
export const tuesdayMorning = new Date("2030-01-08T09:00:00Z");

/** E-mail at day 0, SMS at day 3, AI call at day 7 (2 attempts), e-mail at day 14; weekdays 09:00-19:00 Paris. */
export const standardTimeline: TimelineDefinition.Definition = {
  scheduling: { time_zone: "Europe/Paris", weekdays: [1, 2, 3, 4, 5], window: { start: "09:00", end: "19:00" } },
  steps: [
    { day_offset: 0, channel: "email", configuration: {}, content: { subject: "Reminder {{ invoice_reference }}" } },
    { day_offset: 3, channel: "sms", configuration: { max_attempts: 2, retry_after_hours: 2 }, content: {} },
    { day_offset: 7, channel: "ai_call", configuration: { max_attempts: 2 }, content: {} },
    { day_offset: 14, channel: "email", configuration: {}, content: {} },
  ],
};

export interface EngineTenant {
  readonly companyId: number;
  readonly creditorId: number;
  readonly timelineId: number;
}

export const createEngineTenant = async (
  db: Kysely<Database>,
  options: {
    readonly sandboxNow?: Date;
    readonly definition?: TimelineDefinition.Definition;
    readonly credits?: number;
  } = {},
): Promise<EngineTenant> => {
  const company = await db
    .insertInto("companies")
    .values({
      name: "Acme Recouvrement",
      sandbox: options.sandboxNow !== undefined,
      sandbox_now: options.sandboxNow ?? null,
      time_zone: "Europe/Paris",
      current_credits: options.credits ?? 100,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  const creditor = await db
    .insertInto("creditors")
    .values({ company_id: company.id, name: "Acme Energie" })
    .returning("id")
    .executeTakeFirstOrThrow();
  const timeline = await db
    .transaction()
    .execute((trx) => insertTimeline(trx, company.id, "Standard", options.definition ?? standardTimeline));
  return { companyId: company.id, creditorId: creditor.id, timelineId: timeline.id };
};

export interface DebtSeed {
  readonly email?: string | null;
  readonly phone?: string | null;
  readonly country?: string | null;
  readonly startMode?: string | null;
  readonly dueDate?: string | null;
}

/** Inserts debts of `tenant` and enrolls them at `now`; returns their ids in order. */
export const enrolledDebts = async (
  db: Kysely<Database>,
  tenant: EngineTenant,
  seeds: ReadonlyArray<DebtSeed>,
  now: Date,
): Promise<number[]> => {
  const { rows } = await sql<{ id: number }>`
    insert into debts (company_id, creditor_id, timeline_id, amount_minor, balance_minor, currency, amount_text,
      firstname, lastname, email, phone, country, invoice_reference, timeline_start_mode, due_date)
    select ${tenant.companyId}, ${tenant.creditorId}, ${tenant.timelineId}, 12000, 12000, 'EUR', '120.00',
      'Jeanne', 'Martin', s.email, s.phone, s.country, 'INV-' || s.n, s.start_mode, s.due_date::date
    from jsonb_to_recordset(${JSON.stringify(
      seeds.map((seed, n) => ({
        n,
        email: seed.email === undefined ? `debtor${n}@example.com` : seed.email,
        phone: seed.phone === undefined ? "+33612340000" : seed.phone,
        country: seed.country === undefined ? "FR" : seed.country,
        start_mode: seed.startMode ?? null,
        due_date: seed.dueDate ?? null,
      })),
    )}::jsonb) as s (n int, email text, phone text, country text, start_mode text, due_date text)
    order by s.n
    returning id`.execute(db);
  const ids = rows.map((row) => row.id);
  await db
    .transaction()
    .execute((trx) => enrollDebts(trx, { companyId: tenant.companyId, debtIds: ids, now, restart: false }));
  return ids;
};

/** The sandbox provider for every company, live ones included (the engine tests' provider). */
export const sandboxEverywhere = (db: Kysely<Database>): ChannelAdapters => {
  const adapter = sandboxAdapter(db);
  return { adapterFor: () => adapter };
};

export const engineDependencies = (
  db: Kysely<Database>,
  start: Date,
  settings: Partial<EngineSettings> = {},
): EngineDependencies & { readonly clock: ReturnType<typeof manualClock> } => ({
  db,
  clock: manualClock(start),
  logger: pino({ level: "silent" }),
  ids: testIds, links: testLinks,
  adapters: sandboxEverywhere(db),
  engine: { ...DEFAULT_ENGINE_SETTINGS, ...settings },
});

export const followupsOf = (db: Kysely<Database>, companyId: number, debtId: number) =>
  db
    .selectFrom("followups")
    .select([
      "id",
      "status",
      "type",
      "step",
      "attempt",
      "is_retry",
      "due_at",
      "scheduled_at",
      "call_date",
      "processed_at",
      "credits_charged",
      "recipient",
      "provider_message_id",
      "guard_reason",
      "notes",
    ])
    .where("company_id", "=", companyId)
    .where("debt_id", "=", debtId)
    .orderBy("id")
    .execute();

export const debtOf = (db: Kysely<Database>, companyId: number, debtId: number) =>
  db
    .selectFrom("debts")
    .select(["status", "nb_reminders", "nb_answered", "followups_count"])
    .where("company_id", "=", companyId)
    .where("id", "=", debtId)
    .executeTakeFirstOrThrow();

export const enrollmentOf = (db: Kysely<Database>, companyId: number, debtId: number) =>
  db
    .selectFrom("enrollments")
    .select(["state", "reason", "paused_until", "next_step"])
    .where("company_id", "=", companyId)
    .where("debt_id", "=", debtId)
    .executeTakeFirstOrThrow();

export const sandboxMessagesOf = (db: Kysely<Database>, companyId: number) =>
  db
    .selectFrom("sandbox_messages")
    .select(["followup_id", "debt_id", "channel", "recipient", "subject", "body", "outcome", "sent_at"])
    .where("company_id", "=", companyId)
    .orderBy("id")
    .execute();

export const decisionsOf = (db: Kysely<Database>, companyId: number) =>
  db
    .selectFrom("followup_decisions")
    .select(["followup_id", "decision", "reason", "deferred_until", "decided_at"])
    .where("company_id", "=", companyId)
    .orderBy("id")
    .execute();
