/**
 * A debt's run of its collection timeline (issue 26, docs/decisions/0622):
 * read where it stands (state, the next action, each step done or to come
 * with its followups and the compliance guard's decisions), pause it, resume
 * it, restart it on the timeline's current version.
 */
import { Followup as Rules } from "@dc/domain";
import { Schema } from "effect";
import { API_PREFIX, DEFAULT_JSON_BODY_BYTES, endpoint, type ErrorCase } from "../endpoint.ts";
import { DataEnvelope } from "../envelopes.ts";
import { errorCases, jsonBodyErrors, messages, protectedErrors } from "../errors.ts";
import { IsoOffsetDateTime } from "../formats.ts";
import { EncryptedId } from "../ids.ts";
import { DebtIdParams } from "./debts.ts";
import { IsoDateTimeToDate } from "./followup-fields.ts";

export const debtTimelineMessages = {
  retrieved: "Debt timeline retrieved successfully",
  paused: "Debt timeline paused successfully",
  resumed: "Debt timeline resumed successfully",
  restarted: "Debt timeline restarted successfully",
  notOnTimeline: "The debt is not on a timeline",
  notRunning: "The debt's timeline is stopped or completed",
  debtClosed: "The debt is paid, settled or cancelled: its timeline cannot restart",
} as const;

export const debtTimelineErrorCodes = {
  notOnTimeline: "not_on_timeline",
  notRunning: "timeline_not_running",
  debtClosed: "debt_closed",
} as const;

export const enrollmentStates = ["active", "paused", "stopped", "completed"] as const;

/** Most characters of a pause's `reason`. */
export const MAX_PAUSE_REASON_LENGTH = 255;

const NullableInstant = (description: string) => Schema.NullOr(IsoOffsetDateTime).annotations({ description });

export const GuardDecision = Schema.Struct({
  decided_at: IsoOffsetDateTime.annotations({ description: "When the guard decided, on the company's clock" }),
  decision: Schema.Literal("defer", "block").annotations({
    description: "defer: the action waits for `deferred_until`; block: the action is not carried out",
  }),
  reason: Schema.String.annotations({
    description:
      "quiet_hours, outside_window, weekday, cap_reached, conversation_cooldown, opted_out, hold, no_credits, no_recipient or undeliverable (the e-mail address bounced for good or its owner complained)",
  }),
  detail: Schema.NullOr(Schema.String),
  deferred_until: NullableInstant("Where a deferral moved the action; null for a block or an open-ended hold"),
}).annotations({ identifier: "GuardDecision" });

export const TimelineStepFollowup = Schema.Struct({
  id: EncryptedId("followup").annotations({ description: "The followup; GET /followups/{id} reads it whole" }),
  status: Rules.FollowupStatus,
  attempt: Schema.Int.annotations({ description: "1 for the first attempt, then one more per retry" }),
  is_retry: Schema.Boolean,
  scheduled_at: NullableInstant("When it is (or was last) planned to run"),
  processed_at: NullableInstant("When its outcome was recorded"),
  recipient: Schema.NullOr(Schema.String).annotations({ description: "The address or number it went to" }),
  decisions: Schema.Array(GuardDecision).annotations({ description: "The guard's deferrals and blocks, oldest first" }),
}).annotations({ identifier: "TimelineStepFollowup" });

export const TimelineStepView = Schema.Struct({
  step: Schema.Int.annotations({ description: "Index of the step in the timeline version's run order, from 0" }),
  day_offset: Schema.Int,
  channel: Schema.String,
  due_at: NullableInstant("Anchor plus the day offset; null while the timeline waits for a manual start"),
  status: Schema.Literal("done", "waiting", "cancelled", "upcoming").annotations({
    description:
      "done: its last attempt ended (sent, delivered, answered, failed...); waiting: a followup is scheduled, on hold " +
      "or in progress; cancelled: its followup was cancelled (a guard block or a stop); upcoming: not planned yet",
  }),
  followups: Schema.Array(TimelineStepFollowup).annotations({ description: "Its attempts in this run, first first" }),
}).annotations({ identifier: "TimelineStepView" });

export const DebtTimeline = Schema.Struct({
  debt_id: EncryptedId("debt"),
  timeline_id: EncryptedId("timeline"),
  version: Schema.Int.annotations({ description: "The timeline version this run follows" }),
  state: Schema.Literal(...enrollmentStates),
  reason: Schema.NullOr(Schema.String).annotations({
    description:
      "Why it is paused or stopped: the `reason` of a pause, awaiting_start (start mode manual), payment_plan, " +
      "promise_to_pay, paid, settled, cancelled or deleted; null while active",
  }),
  paused_until: NullableInstant("When a pause with an end resumes by itself"),
  started_at: NullableInstant("The anchor every step's due time counts from"),
  restarts: Schema.Int.annotations({ description: "How many times this debt's timeline restarted" }),
  next_action_at: NullableInstant("When the next action is planned; null unless active"),
  now: IsoOffsetDateTime.annotations({ description: "The company's clock now (a sandbox company's own)" }),
  steps: Schema.Array(TimelineStepView).annotations({ description: "Every step of the version, in run order" }),
}).annotations({ identifier: "DebtTimeline" });
export type DebtTimeline = typeof DebtTimeline.Type;

export const PauseDebtTimeline = Schema.Struct({
  until: Schema.optionalWith(
    IsoDateTimeToDate.annotations({
      description: "When the pause ends by itself (later than the company's clock now); without it, until a resume",
    }),
    { exact: true },
  ),
  reason: Schema.optionalWith(
    Schema.String.pipe(
      Schema.minLength(1, { message: () => "must not be empty" }),
      Schema.maxLength(MAX_PAUSE_REASON_LENGTH, {
        message: () => `must be at most ${MAX_PAUSE_REASON_LENGTH} characters`,
      }),
    ).annotations({ description: "Why, as the timeline read shows it (default `paused`)" }),
    { exact: true },
  ),
}).annotations({ identifier: "PauseDebtTimeline" });

const notOnTimeline = (status: 404 | 409): ErrorCase => ({
  status,
  message: debtTimelineMessages.notOnTimeline,
  description:
    status === 404
      ? "The debt exists but has never run a timeline (no `timeline_id`, or it was paid or cancelled before one could start)"
      : "The debt has no `timeline_id`: set one with PUT or PATCH /debts/{id}, which starts it",
  envelope: "api",
  errorCode: debtTimelineErrorCodes.notOnTimeline,
});

const notRunning = (operation: string): ErrorCase => ({
  status: 409,
  message: debtTimelineMessages.notRunning,
  description: `The debt's timeline is \`stopped\` or \`completed\`: there is nothing to ${operation}; a restart runs it again`,
  envelope: "api",
  errorCode: debtTimelineErrorCodes.notRunning,
});

const debtClosed: ErrorCase = {
  status: 409,
  message: debtTimelineMessages.debtClosed,
  description: "The debt is paid, settled or cancelled: no timeline runs for it",
  envelope: "api",
  errorCode: debtTimelineErrorCodes.debtClosed,
};

const debtNotFound = errorCases.notFound(messages.debtNotFound);
const Envelope = DataEnvelope(DebtTimeline).annotations({ identifier: "DebtTimelineResponse" });

export const getDebtTimeline = endpoint({
  operationId: "getDebtTimeline",
  method: "get",
  path: `${API_PREFIX}/debts/{id}/timeline`,
  scope: "debts:read",
  tags: ["Timelines"],
  summary: "Read a debt's timeline",
  description:
    "Where the debt stands on its collection timeline: the state of its run (`active`, `paused`, `stopped`, " +
    "`completed`) and why, when the next action is planned, and every step of the timeline version it follows, done " +
    "or to come, with the followups that carried it out and the compliance guard's deferrals and blocks. Times are on " +
    "the company's clock (a sandbox company's own).",
  params: DebtIdParams,
  success: { status: 200, description: "The debt's timeline", schema: Envelope },
  errors: [...protectedErrors("debts:read"), debtNotFound, notOnTimeline(404)],
  rateLimit: "read",
});

export const pauseDebtTimeline = endpoint({
  operationId: "pauseDebtTimeline",
  method: "post",
  path: `${API_PREFIX}/debts/{id}/timeline/pause`,
  scope: "debts:write",
  tags: ["Timelines"],
  summary: "Pause a debt's timeline",
  description:
    "Stops the debt's timeline from acting until `until` (later than the company's clock now) or until a resume. Its " +
    "waiting followup goes `on_hold`; the schedule is kept. Pausing a paused timeline replaces its `until` and " +
    "`reason`. Send `{}` for a pause without an end. Answers with the debt's timeline.",
  params: DebtIdParams,
  body: { contentType: "application/json", schema: PauseDebtTimeline, maxBytes: DEFAULT_JSON_BODY_BYTES },
  success: { status: 200, description: "The debt's timeline, paused", schema: Envelope },
  errors: [
    ...protectedErrors("debts:write"),
    ...jsonBodyErrors(),
    debtNotFound,
    notOnTimeline(409),
    notRunning("pause"),
  ],
  rateLimit: "write",
});

export const resumeDebtTimeline = endpoint({
  operationId: "resumeDebtTimeline",
  method: "post",
  path: `${API_PREFIX}/debts/{id}/timeline/resume`,
  scope: "debts:write",
  tags: ["Timelines"],
  summary: "Resume a debt's timeline",
  description:
    "Ends a pause (one of yours, a payment plan's or a promise's) or starts a timeline waiting for a manual start. " +
    "An action whose time passed meanwhile runs at the next instant the compliance guard allows; the following " +
    "steps keep their dates. Resuming an active timeline changes nothing. Answers with the debt's timeline.",
  params: DebtIdParams,
  success: { status: 200, description: "The debt's timeline, active", schema: Envelope },
  errors: [...protectedErrors("debts:write"), debtNotFound, notOnTimeline(409), notRunning("resume")],
  rateLimit: "write",
});

export const restartDebtTimeline = endpoint({
  operationId: "restartDebtTimeline",
  method: "post",
  path: `${API_PREFIX}/debts/{id}/timeline/restart`,
  scope: "debts:write",
  tags: ["Timelines"],
  summary: "Restart a debt's timeline",
  description:
    "Starts the debt's timeline over from its first step, on the timeline's current version, anchored now by the " +
    "debt's `timeline_start_mode`, whatever its state; the waiting followup of the previous run is cancelled and its " +
    "done steps stay in the followups. Sets the debt's `last_timeline_restart` (a `debt.updated` event). Answers with " +
    "the debt's timeline.",
  params: DebtIdParams,
  success: { status: 200, description: "The debt's timeline, restarted", schema: Envelope },
  errors: [...protectedErrors("debts:write"), debtNotFound, notOnTimeline(409), debtClosed],
  rateLimit: "write",
});
