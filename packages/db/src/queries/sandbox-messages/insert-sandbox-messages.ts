/**
 * Records what the sandbox provider received, in one statement for a whole
 * batch (rows travel as one array parameter per column, array-literals.ts).
 * A message whose idempotency key the company already has is skipped (the
 * unique index `sandbox_messages_idempotency_key`, migration 0029): sending
 * the same attempt twice, or two workers racing on it, stores it once.
 * Answers the keys this call inserted.
 */
import { sql } from "kysely";
import type { Db } from "../executor.ts";
import { integerArray, textArray } from "../array-literals.ts";

export interface SandboxMessageRecord {
  readonly companyId: number;
  readonly debtId: number;
  readonly followupId: number;
  readonly idempotencyKey: string;
  readonly channel: string;
  readonly recipient: string;
  readonly subject: string | null;
  readonly body: string;
  /** The outcome status the sandbox chose (`delivered`, `no_answer`, `failed`...). */
  readonly outcome: string;
  /** The company's clock at the send. */
  readonly sentAt: Date;
}

export const insertSandboxMessages = async (
  db: Db,
  records: ReadonlyArray<SandboxMessageRecord>,
): Promise<ReadonlyArray<{ readonly companyId: number; readonly idempotencyKey: string }>> => {
  if (records.length === 0) return [];
  const { rows } = await sql<{ company_id: number; idempotency_key: string }>`
    insert into sandbox_messages
      (company_id, debt_id, followup_id, idempotency_key, channel, recipient, subject, body, outcome, sent_at)
    select r.company_id, r.debt_id, r.followup_id, r.idempotency_key, r.channel, r.recipient, r.subject, r.body,
      r.outcome, r.sent_at
    from unnest(
      ${integerArray(records.map((r) => r.companyId))}::int8[],
      ${integerArray(records.map((r) => r.debtId))}::int8[],
      ${integerArray(records.map((r) => r.followupId))}::int8[],
      ${textArray(records.map((r) => r.idempotencyKey))}::text[],
      ${textArray(records.map((r) => r.channel))}::text[],
      ${textArray(records.map((r) => r.recipient))}::text[],
      ${textArray(records.map((r) => r.subject))}::text[],
      ${textArray(records.map((r) => r.body))}::text[],
      ${textArray(records.map((r) => r.outcome))}::text[],
      ${textArray(records.map((r) => r.sentAt.toISOString()))}::timestamptz[]
    ) with ordinality as r (company_id, debt_id, followup_id, idempotency_key, channel, recipient, subject, body,
      outcome, sent_at, position)
    order by r.position
    on conflict (company_id, idempotency_key) do nothing
    returning company_id, idempotency_key
  `.execute(db);
  return rows.map((row) => ({ companyId: row.company_id, idempotencyKey: row.idempotency_key }));
};
