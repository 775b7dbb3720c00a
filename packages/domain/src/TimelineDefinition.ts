/**
 * A timeline's definition as administrators write it and as a timeline
 * version stores it (docs/decisions/0600): when the timeline may send
 * (`scheduling`) and its steps in run order, each a channel, its
 * configuration and its content. The engine computes every step's due time
 * from the enrollment's anchor plus `day_offset` days, so steps are sorted by
 * `day_offset` (ties keep their written order).
 */
import { Schema } from "effect";
import { Channel } from "./Channel.ts";
import { Window } from "./DailyWindow.ts";
import * as DebtorTimeZone from "./DebtorTimeZone.ts";

export { Channel, channels } from "./Channel.ts";
export { Window } from "./DailyWindow.ts";

/** Longest timeline, in days from the anchor to its last step. */
export const maxDayOffset = 365;
/** Most steps of one timeline. */
export const maxSteps = 100;
/** Most attempts of one step (the first and its retries). */
export const maxAttempts = 5;

/** An IANA time zone name. */
export const TimeZone = Schema.String.pipe(
  Schema.filter((zone) => DebtorTimeZone.isTimeZone(zone) || "must be an IANA time zone such as Europe/Paris"),
);

/** When a timeline may send: weekdays (ISO, 1 = Monday) and a window, in `time_zone` or the debtor's own when null. */
export const Scheduling = Schema.Struct({
  time_zone: Schema.NullOr(TimeZone),
  weekdays: Schema.Array(
    Schema.Int.pipe(Schema.between(1, 7, { message: () => "must be an ISO weekday from 1 (Monday) to 7 (Sunday)" })),
  ).pipe(Schema.minItems(1, { message: () => "must name at least one weekday" })),
  window: Window,
}).annotations({ parseOptions: { onExcessProperty: "error" } });
export type Scheduling = typeof Scheduling.Type;

/** Text fields a template may hold, and their longest length. */
export const maxContentLength = 20_000;
const Text = Schema.String.pipe(
  Schema.maxLength(maxContentLength, { message: () => `must be at most ${maxContentLength} characters` }),
);

/**
 * Content of a step: templates over the debt's fields (subject for e-mail,
 * body for every channel). Either may be left out: the channel's default
 * template then speaks for the step.
 */
export const Content = Schema.Struct({
  subject: Schema.optionalWith(Text, { exact: true }),
  body: Schema.optionalWith(Text, { exact: true }),
}).annotations({ parseOptions: { onExcessProperty: "error" } });
export type Content = typeof Content.Type;

/** Non-content settings of a step: attempts and channel options (voice, agent, sender...). */
export const Configuration = Schema.Struct(
  {
    max_attempts: Schema.optionalWith(
      Schema.Int.pipe(Schema.between(1, maxAttempts, { message: () => `must be an integer from 1 to ${maxAttempts}` })),
      { exact: true },
    ),
    retry_after_hours: Schema.optionalWith(
      Schema.Number.pipe(Schema.between(1, 24 * 14, { message: () => "must be between 1 and 336 hours" })),
      { exact: true },
    ),
  },
  Schema.Record({ key: Schema.String, value: Schema.Unknown }),
);
export type Configuration = typeof Configuration.Type;

export const Step = Schema.Struct({
  day_offset: Schema.Int.pipe(
    Schema.between(0, maxDayOffset, { message: () => `must be an integer from 0 to ${maxDayOffset}` }),
  ),
  channel: Channel,
  configuration: Schema.optionalWith(Configuration, { exact: true, default: () => ({}) }),
  content: Schema.optionalWith(Content, { exact: true, default: () => ({}) }),
}).annotations({ parseOptions: { onExcessProperty: "error" } });
export type Step = typeof Step.Type;

/** A whole definition. Steps are stored sorted by `day_offset` (stable). */
export const Definition = Schema.Struct({
  scheduling: Scheduling,
  steps: Schema.Array(Step).pipe(
    Schema.minItems(1, { message: () => "must contain at least 1 step" }),
    Schema.maxItems(maxSteps, { message: () => `must contain at most ${maxSteps} steps` }),
  ),
}).annotations({ identifier: "TimelineDefinition", parseOptions: { onExcessProperty: "error" } });
export type Definition = typeof Definition.Type;

/** The definition with its steps in run order (by day offset, ties in written order). */
export const inRunOrder = (definition: Definition): Definition => ({
  ...definition,
  steps: definition.steps
    .map((step, index) => ({ step, index }))
    .sort((a, b) => a.step.day_offset - b.step.day_offset || a.index - b.index)
    .map(({ step }) => step),
});

/** Attempts a step gets before it fails for good (1 when unset). */
export const attemptsOf = (step: Step): number => step.configuration.max_attempts ?? 1;

/** Hours between a failed attempt and the next (4 when unset). */
export const retryDelayHoursOf = (step: Step): number => step.configuration.retry_after_hours ?? 4;
