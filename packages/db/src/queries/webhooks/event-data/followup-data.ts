/**
 * A followup's public shape (contract 2.5), shared by the api's responses and
 * the `data` of `followup.created` and `followup.updated`. The payload is the
 * followup as the api returns it, except the media links: a pre-signed link
 * lives one hour and a delivery may be retried for days, so the payload says
 * whether a recording or a PDF exists (`has_audio`, `has_pdf`) and the
 * integrator reads fresh links with GET /followups/{id} (docs/decisions/0453).
 */
import type { Followup as Rules } from "@dc/domain";
import type { Kysely } from "kysely";
import type { Database, Followup } from "../../../schema.ts";
import { type EventIds, isoOffset } from "./wire.ts";

/** The columns a followup's public shape is read from (its media keys and company included, for the api's signed links). */
export const followupResourceColumns = [
  "id",
  "company_id",
  "debt_id",
  "status",
  "type",
  "call_date",
  "scheduled_at",
  "summary",
  "notes",
  "call_id",
  "audio_object_key",
  "pdf_object_key",
  "duration_ms",
  "disconnection_reason",
  "direction",
  "phone_number_used",
  "is_retry",
  "processed_at",
  "credits_charged",
  "triggered_payment",
  "email_open_count",
  "email_first_opened_at",
  "email_click_count",
  "created_at",
  "updated_at",
] as const satisfies ReadonlyArray<keyof Followup>;

export type FollowupResourceRow = Pick<Followup, (typeof followupResourceColumns)[number]>;

/**
 * The public fields of a followup without its media (the api adds signed
 * links, webhook payloads `has_audio` and `has_pdf`). `Time` is how
 * timestamps appear: Dates for the api (its response schema formats them),
 * wire strings for webhook payloads.
 */
export const presentFollowupRow = <Time>(ids: EventIds, row: FollowupResourceRow, time: (date: Date) => Time) => {
  const timeOrNull = (date: Date | null): Time | null => (date === null ? null : time(date));
  return {
    id: ids.encode("followup", row.id),
    debt_id: ids.encode("debt", row.debt_id),
    status: row.status as Rules.FollowupStatus,
    type: row.type as Rules.FollowupType,
    call_date: timeOrNull(row.call_date),
    scheduled_at: timeOrNull(row.scheduled_at),
    summary: row.summary,
    notes: row.notes,
    call_id: row.call_id,
    duration_ms: row.duration_ms,
    disconnection_reason: row.disconnection_reason,
    direction: row.direction,
    phone_number_used: row.phone_number_used,
    is_retry: row.is_retry,
    processed_at: timeOrNull(row.processed_at),
    credits_charged: row.credits_charged,
    triggered_payment: row.triggered_payment,
    email_opened: row.email_open_count > 0,
    email_open_count: row.email_open_count,
    email_first_opened_at: timeOrNull(row.email_first_opened_at),
    email_clicked: row.email_click_count > 0,
    email_click_count: row.email_click_count,
    created_at: time(row.created_at),
    updated_at: time(row.updated_at),
  };
};

/** The `data` of each followup of `followupIds` (of `companyId`), keyed by followup id. */
export const followupEventData = async (
  db: Kysely<Database>,
  ids: EventIds,
  companyId: number,
  followupIds: ReadonlyArray<number>,
): Promise<Map<number, Record<string, unknown>>> => {
  if (followupIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("followups")
    .select(followupResourceColumns)
    .where("company_id", "=", companyId)
    .where("id", "in", [...followupIds])
    .execute();
  return new Map(
    rows.map((row) => [
      row.id,
      {
        ...presentFollowupRow(ids, row, isoOffset),
        has_audio: row.audio_object_key !== null,
        has_pdf: row.pdf_object_key !== null,
      },
    ]),
  );
};
