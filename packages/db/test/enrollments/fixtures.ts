/**
 * A company with a creditor and a timeline (through `insertTimeline`, so it
 * has its version 1), and debts inserted on it, for the enrollment tests.
 */
import type { TimelineDefinition } from "@dc/domain";
import { type Kysely, sql } from "kysely";
import type { Database } from "../../src/schema.ts";
import { insertTimeline } from "../../src/queries/timelines/insert-timeline.ts";

export const fourSteps: TimelineDefinition.Definition = {
  scheduling: { time_zone: "Europe/Paris", weekdays: [1, 2, 3, 4, 5], window: { start: "09:00", end: "19:00" } },
  steps: [
    { day_offset: 0, channel: "email", configuration: {}, content: {} },
    { day_offset: 3, channel: "sms", configuration: {}, content: {} },
    { day_offset: 7, channel: "ai_call", configuration: { max_attempts: 2 }, content: {} },
    { day_offset: 14, channel: "email", configuration: {}, content: {} },
  ],
};

export interface Tenant {
  readonly companyId: number;
  readonly creditorId: number;
  readonly timelineId: number;
}

export const createTenant = async (
  db: Kysely<Database>,
  options: { readonly sandboxNow?: Date; readonly definition?: TimelineDefinition.Definition } = {},
): Promise<Tenant> => {
  const company = await db
    .insertInto("companies")
    .values({
      name: "Engine test",
      sandbox: options.sandboxNow !== undefined,
      sandbox_now: options.sandboxNow ?? null,
      time_zone: "Europe/Paris",
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  const creditor = await db
    .insertInto("creditors")
    .values({ company_id: company.id, name: "Creditor" })
    .returning("id")
    .executeTakeFirstOrThrow();
  const timeline = await db
    .transaction()
    .execute((trx) => insertTimeline(trx, company.id, "Standard", options.definition ?? fourSteps));
  return { companyId: company.id, creditorId: creditor.id, timelineId: timeline.id };
};

export interface DebtSeed {
  readonly timelineStartMode?: string | null;
  readonly dueDate?: string | null;
  readonly status?: string;
  readonly timelineId?: number | null;
}

/** Inserts debts of `tenant` (one per seed) and returns their ids in order. */
export const insertDebts = async (
  db: Kysely<Database>,
  tenant: Tenant,
  seeds: ReadonlyArray<DebtSeed>,
): Promise<number[]> => {
  const ids: number[] = [];
  for (const seed of seeds) {
    const { rows } = await sql<{ id: number }>`
      insert into debts (company_id, creditor_id, timeline_id, status, amount_minor, balance_minor, currency, amount_text,
        lastname, email, timeline_start_mode, due_date)
      values (${tenant.companyId}, ${tenant.creditorId}, ${seed.timelineId === undefined ? tenant.timelineId : seed.timelineId},
        ${seed.status ?? "status.default.pending"}, 10000, 10000, 'EUR', '100.00 EUR', 'Doe', 'jane@example.com',
        ${seed.timelineStartMode ?? null}, ${seed.dueDate ?? null}::date)
      returning id`.execute(db);
    ids.push(rows[0]!.id);
  }
  return ids;
};
