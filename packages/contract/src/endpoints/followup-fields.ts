/**
 * The followup resource on the wire (contract 2.4, 3.1, 4.6): the output
 * shape shared by every followup response, and the request bodies of create
 * and update. Enums come from the domain's Followup module.
 */
import { Followup as Rules, Contact, Dates } from "@dc/domain";
import { ParseResult, Schema } from "effect";
import { IsoOffsetDateTime } from "../formats.ts";
import { EncryptedId } from "../ids.ts";

/** A string PostgreSQL can store (no NUL character), at most `max` characters. */
export const BoundedText = (max: number, description?: string) =>
  Schema.String.pipe(
    Schema.maxLength(max, { message: () => `must be at most ${max} characters` }),
    Schema.filter((value) => !value.includes("\u0000") || "must not contain NUL characters"),
  ).annotations(description === undefined ? {} : { description });

/**
 * An ISO 8601 date-time with an offset or `Z` in UTC years 0001 to 9999
 * (domain rule: stored, then written back with four-digit years, contract
 * 2.1), decoded to a Date.
 */
export const IsoDateTimeToDate = Schema.transformOrFail(Dates.IsoDateTime, Schema.DateFromSelf, {
  strict: true,
  decode: (value, _, ast) => {
    const date = new Date(value);
    return Number.isNaN(date.getTime())
      ? ParseResult.fail(new ParseResult.Type(ast, value, "must be an ISO 8601 date-time with an offset or Z"))
      : ParseResult.succeed(date);
  },
  encode: (date) => ParseResult.succeed(date.toISOString()),
}).annotations({ jsonSchema: { type: "string", format: "date-time", examples: ["2026-11-21T16:03:18+02:00"] } });

/** An absolute http(s) URL: it becomes the target of the media redirect, so no other scheme. */
const MediaSourceUrl = BoundedText(2048)
  .pipe(
    Schema.filter(
      (value) => {
        try {
          const url = new URL(value);
          return url.protocol === "https:" || url.protocol === "http:";
        } catch {
          return false;
        }
      },
      { message: () => "must be an absolute http or https URL" },
    ),
  )
  .annotations({
    description: "Where the recording is stored; reads return a pre-signed URL of this service instead",
    jsonSchema: {
      type: "string",
      format: "uri",
      maxLength: 2048,
      examples: ["https://recordings.example/calls/123.mp3"],
    },
  });

const PhoneUsed = Contact.Phone.annotations({
  description: "E.164 number the platform used",
  jsonSchema: { type: "string", pattern: "^\\+[1-9]\\d{6,14}$", examples: ["+33612345678"] },
});

const DurationMs = Schema.Number.pipe(Schema.int(), Schema.between(0, 2_147_483_647)).annotations({
  message: () => ({ message: "must be an integer from 0 to 2147483647", override: true }),
  jsonSchema: { type: "integer", minimum: 0, maximum: 2_147_483_647, description: "Call length in milliseconds" },
});

const Type = Rules.FollowupType.annotations({ description: "Followup type" });
const Status = Rules.FollowupStatus;
const Direction = Rules.Direction;

/** The editable fields, each nullable where the resource is nullable. */
const editable = {
  type: Type,
  status: Status,
  call_date: Schema.NullOr(IsoDateTimeToDate),
  scheduled_at: Schema.NullOr(IsoDateTimeToDate),
  summary: Schema.NullOr(BoundedText(100_000)),
  notes: Schema.NullOr(BoundedText(100_000)),
  call_id: Schema.NullOr(BoundedText(255, "External provider call id")),
  audio_url: Schema.NullOr(MediaSourceUrl),
  phone_number_used: Schema.NullOr(PhoneUsed),
  disconnection_reason: Schema.NullOr(BoundedText(255)),
  duration_ms: Schema.NullOr(DurationMs),
  direction: Schema.NullOr(Direction),
  is_retry: Schema.Boolean,
};

/** Body of POST /followups: `debt_id` and `type` required, `status` defaults to `on_hold`. */
export const FollowupCreate = Schema.Struct({
  debt_id: Schema.String.pipe(Schema.minLength(1, { message: () => "must be a debt id" })).annotations({
    description: "Encrypted id of a debt of the company",
  }),
  type: editable.type,
  // The `default` annotations put in the document the value the decoder fills in for an absent key.
  status: Schema.optionalWith(Status.annotations({ default: Rules.defaultStatus }), {
    default: () => Rules.defaultStatus,
  }),
  call_date: Schema.optional(editable.call_date),
  scheduled_at: Schema.optional(editable.scheduled_at),
  summary: Schema.optional(editable.summary),
  notes: Schema.optional(editable.notes),
  call_id: Schema.optional(editable.call_id),
  audio_url: Schema.optional(editable.audio_url),
  phone_number_used: Schema.optional(editable.phone_number_used),
  disconnection_reason: Schema.optional(editable.disconnection_reason),
  duration_ms: Schema.optional(editable.duration_ms),
  direction: Schema.optional(editable.direction),
  is_retry: Schema.optionalWith(editable.is_retry.annotations({ default: false }), { default: () => false }),
}).annotations({ identifier: "FollowupCreate" });
export type FollowupCreate = typeof FollowupCreate.Type;

/** Body of PUT and PATCH /followups/{id}: any non-empty subset; a followup never moves to another debt. */
export const FollowupUpdate = Schema.Struct({
  type: Schema.optional(editable.type),
  status: Schema.optional(editable.status),
  call_date: Schema.optional(editable.call_date),
  scheduled_at: Schema.optional(editable.scheduled_at),
  summary: Schema.optional(editable.summary),
  notes: Schema.optional(editable.notes),
  call_id: Schema.optional(editable.call_id),
  audio_url: Schema.optional(editable.audio_url),
  phone_number_used: Schema.optional(editable.phone_number_used),
  disconnection_reason: Schema.optional(editable.disconnection_reason),
  duration_ms: Schema.optional(editable.duration_ms),
  direction: Schema.optional(editable.direction),
  is_retry: Schema.optional(editable.is_retry),
}).annotations({ identifier: "FollowupUpdate" });
export type FollowupUpdate = typeof FollowupUpdate.Type;

const Timestamp = IsoOffsetDateTime;
const PresignedUrl = Schema.NullOr(
  Schema.String.annotations({ description: "Pre-signed URL of this service, valid for 1 hour" }),
);

/** A followup as every followup response returns it (the list's extra fields included). */
export const Followup = Schema.Struct({
  id: EncryptedId("followup"),
  debt_id: EncryptedId("debt"),
  status: Status,
  type: Type,
  call_date: Schema.NullOr(Timestamp),
  scheduled_at: Schema.NullOr(Timestamp),
  summary: Schema.NullOr(Schema.String),
  notes: Schema.NullOr(Schema.String),
  call_id: Schema.NullOr(Schema.String),
  audio_url: PresignedUrl,
  pdf_url: PresignedUrl,
  duration_ms: Schema.NullOr(Schema.Int),
  disconnection_reason: Schema.NullOr(Schema.String),
  direction: Schema.NullOr(Direction),
  phone_number_used: Schema.NullOr(Schema.String),
  is_retry: Schema.Boolean,
  processed_at: Schema.NullOr(Timestamp).annotations({
    description: "When the followup was first recorded as executed (and charged); null before",
  }),
  credits_charged: Schema.Int.annotations({ description: "Credits consumed by this followup (charged once)" }),
  triggered_payment: Schema.Boolean,
  email_opened: Schema.Boolean,
  email_open_count: Schema.Int,
  email_first_opened_at: Schema.NullOr(Timestamp),
  email_clicked: Schema.Boolean,
  email_click_count: Schema.Int,
  media_urls_expire_at: Schema.optional(Timestamp).annotations({
    description: "When `audio_url` and `pdf_url` stop working; present only when one of them is",
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
}).annotations({ identifier: "Followup" });
export type Followup = typeof Followup.Type;
