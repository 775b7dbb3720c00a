/**
 * Records providers' outcomes on `in_progress` engine followups, one
 * statement for all (docs/decisions/0603): the status the outcome maps to,
 * `call_date` (the company's clock at the send), the provider's message id,
 * the call's duration and summary, a letter's stored PDF, the error of a failure (in `notes`), and
 * for an executed status its first charge (`processed_at`,
 * `credits_charged`, decision 0152); a call's provider fields (`call_id`,
 * `disconnection_reason`, the recording's location, `direction`) and, for a
 * call that reached voicemail, the followup type `voicemail`
 * (docs/decisions/0640). Only followups still `in_progress` are
 * written: an outcome recorded twice (a recovery racing a late send) writes
 * once, and the caller applies its effects for the returned ids only.
 */
import { sql } from "kysely";
import { integerArray, textArray } from "../array-literals.ts";
import type { DbTransaction } from "../executor.ts";

export interface SendOutcomeRecord {
  readonly companyId: number;
  readonly followupId: number;
  readonly status: string;
  readonly callDate: Date;
  readonly providerMessageId: string | null;
  readonly durationMs: number | null;
  readonly summary: string | null;
  readonly notes: string | null;
  /** Set for an executed status: the charge of decision 0152. */
  readonly creditsCharged: number | null;
  readonly phoneNumberUsed: string | null;
  /** A call's fields as its provider reported them; null leaves the column as it is. */
  readonly callId?: string | null;
  readonly disconnectionReason?: string | null;
  readonly audioUrl?: string | null;
  readonly direction?: "inbound" | "outbound" | null;
  /** Another followup type than the step's (`voicemail` for a call that reached one); null keeps it. */
  readonly type?: string | null;
  /** The stored object a letter printed (docs/decisions/0650). */
  readonly pdfObjectKey: string | null;
}

/** Writes the outcomes; returns the ids (with their companies) that were still `in_progress`. */
export const recordSendOutcomes = async (
  trx: DbTransaction,
  outcomes: ReadonlyArray<SendOutcomeRecord>,
  now: Date,
): Promise<ReadonlyArray<{ readonly companyId: number; readonly followupId: number }>> => {
  if (outcomes.length === 0) return [];
  const stamp = now.toISOString();
  const { rows } = await sql<{ company_id: number; id: number }>`
    update followups f
    set status = i.status, call_date = i.call_date, provider_message_id = coalesce(i.provider_message_id, f.provider_message_id),
      duration_ms = coalesce(i.duration_ms, f.duration_ms), summary = coalesce(i.summary, f.summary),
      notes = coalesce(i.notes, f.notes), phone_number_used = coalesce(i.phone_number_used, f.phone_number_used),
      call_id = coalesce(i.call_id, f.call_id), disconnection_reason = coalesce(i.disconnection_reason, f.disconnection_reason),
      audio_object_key = coalesce(i.audio_url, f.audio_object_key), direction = coalesce(i.direction, f.direction),
      type = coalesce(i.type, f.type),
      pdf_object_key = coalesce(i.pdf_object_key, f.pdf_object_key),
      processed_at = case when i.credits_charged is not null and f.processed_at is null then ${stamp}::timestamptz else f.processed_at end,
      credits_charged = case when i.credits_charged is not null and f.processed_at is null then i.credits_charged else f.credits_charged end,
      updated_at = ${stamp}::timestamptz
    from unnest(
      ${integerArray(outcomes.map((o) => o.companyId))}::int8[],
      ${integerArray(outcomes.map((o) => o.followupId))}::int8[],
      ${textArray(outcomes.map((o) => o.status))}::text[],
      ${textArray(outcomes.map((o) => o.callDate.toISOString()))}::timestamptz[],
      ${textArray(outcomes.map((o) => o.providerMessageId))}::text[],
      ${integerArray(outcomes.map((o) => o.durationMs))}::int8[],
      ${textArray(outcomes.map((o) => o.summary))}::text[],
      ${textArray(outcomes.map((o) => o.notes))}::text[],
      ${integerArray(outcomes.map((o) => o.creditsCharged))}::int4[],
      ${textArray(outcomes.map((o) => o.phoneNumberUsed))}::text[],
      ${textArray(outcomes.map((o) => o.callId ?? null))}::text[],
      ${textArray(outcomes.map((o) => o.disconnectionReason ?? null))}::text[],
      ${textArray(outcomes.map((o) => o.audioUrl ?? null))}::text[],
      ${textArray(outcomes.map((o) => o.direction ?? null))}::text[],
      ${textArray(outcomes.map((o) => o.type ?? null))}::text[],
      ${textArray(outcomes.map((o) => o.pdfObjectKey))}::text[]
    ) as i (company_id, followup_id, status, call_date, provider_message_id, duration_ms, summary, notes, credits_charged,
      phone_number_used, call_id, disconnection_reason, audio_url, direction, type, pdf_object_key)
    where f.company_id = i.company_id and f.id = i.followup_id and f.status = 'in_progress'
    returning f.company_id, f.id
  `.execute(trx);
  return rows.map((row) => ({ companyId: row.company_id, followupId: row.id }));
};
