/**
 * Makes the sandbox provider idempotent (docs/decisions/0615): each
 * `sandbox_messages` row carries the idempotency key the engine gave the
 * send (`<followup public id>:<attempt>`), unique per company, so a second
 * send of the same key inserts nothing and `lookup` finds the first by it.
 * Nothing wrote the table before this migration, so the column can be
 * `not null` without a default.
 */
import { type Kysely, sql } from "kysely";

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`alter table sandbox_messages add column idempotency_key text not null`.execute(db);
  await sql`
    create unique index sandbox_messages_idempotency_key on sandbox_messages (company_id, idempotency_key)
  `.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`drop index if exists sandbox_messages_idempotency_key`.execute(db);
  await sql`alter table sandbox_messages drop column if exists idempotency_key`.execute(db);
};
