/**
 * Timelines (contract 2.10, 4.7): automated schedules with their scheduling
 * settings, timepoints and actions. An action's `configuration` holds only
 * non-content settings; message bodies, subjects, templates and callback
 * numbers are never returned (docs/decisions/0157).
 */
import { Schema } from "effect";
import { API_PREFIX, endpoint } from "../endpoint.ts";
import { ListEnvelope } from "../envelopes.ts";
import { errorCases, protectedErrors } from "../errors.ts";
import { IsoOffsetDateTime } from "../formats.ts";
import { EncryptedId } from "../ids.ts";
import { PaginationQuery } from "../pagination.ts";

const TimeOfDay = Schema.String.annotations({ description: "Local time HH:MM", examples: ["09:00"] });

export const TimelineAction = Schema.Struct({
  channel: Schema.Literal("ai_call", "email", "sms", "whatsapp", "voicemail", "manual_call", "postmail"),
  position: Schema.Int,
  configuration: Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
    jsonSchema: {
      type: "object",
      additionalProperties: true,
      description: "Non-content settings (voice, attempts, sender name...)",
    },
  }),
}).annotations({ identifier: "TimelineAction" });

export const TimelineTimepoint = Schema.Struct({
  day_offset: Schema.Int.annotations({ description: "Days after the timeline starts" }),
  position: Schema.Int,
  actions: Schema.Array(TimelineAction),
}).annotations({ identifier: "TimelineTimepoint" });

export const Timeline = Schema.Struct({
  id: EncryptedId("timeline").annotations({ description: "Encrypted timeline id, usable as `timeline_id` on debts" }),
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  is_default: Schema.Boolean,
  scheduling: Schema.Struct({
    timezone: Schema.NullOr(Schema.String).annotations({
      description: "IANA time zone of the sending window; null: each debtor's own local time zone",
    }),
    allowed_weekdays: Schema.Array(Schema.Int).annotations({ description: "ISO weekdays, 1 = Monday to 7 = Sunday" }),
    window_start: TimeOfDay,
    window_end: TimeOfDay,
  }),
  timepoints: Schema.Array(TimelineTimepoint),
  created_at: IsoOffsetDateTime,
  updated_at: IsoOffsetDateTime,
}).annotations({ identifier: "Timeline" });

export const listTimelines = endpoint({
  operationId: "listTimelines",
  method: "get",
  path: `${API_PREFIX}/timelines`,
  scope: "debts:read",
  tags: ["Timelines"],
  summary: "List the timelines",
  description: "The company's timelines (archived ones excepted), oldest first, with their timepoints and actions.",
  query: PaginationQuery,
  success: {
    status: 200,
    description: "A page of timelines",
    schema: ListEnvelope(Timeline).annotations({ identifier: "TimelineList" }),
  },
  errors: [...protectedErrors("debts:read"), errorCases.validation],
  rateLimit: "read",
});
