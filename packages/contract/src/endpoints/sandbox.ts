/**
 * Sandbox companies' own operations (issue 26, docs/decisions/0621): their
 * clock, read and advanced, and the messages their sandbox channels kept
 * instead of sending. A live company gets 404 on each: for it, there is no
 * sandbox to read or advance.
 */
import { Schema } from "effect";
import { API_PREFIX, DEFAULT_JSON_BODY_BYTES, endpoint, type ErrorCase } from "../endpoint.ts";
import { DataEnvelope, ListEnvelope } from "../envelopes.ts";
import { errorCases, jsonBodyErrors, protectedErrors } from "../errors.ts";
import { IsoOffsetDateTime } from "../formats.ts";
import { EncryptedId } from "../ids.ts";
import { paginationFields } from "../pagination.ts";
import { IsoDateTimeToDate } from "./followup-fields.ts";
import { queryParams } from "./request-parts.ts";

/** Most days one advance may move a sandbox clock forward. */
export const SANDBOX_MAX_ADVANCE_DAYS = 400;

/** Longest an advance waits for the worker before answering 503 (it carries on meanwhile). */
export const SANDBOX_ADVANCE_MAX_WAIT_SECONDS = 30;

export const sandboxMessages = {
  clockRetrieved: "Sandbox clock retrieved successfully",
  clockAdvanced: "Sandbox clock advanced successfully",
  notSandbox: "Sandbox not found: this company is not a sandbox company",
  advancing: "The sandbox clock is still advancing: repeat the request to wait for it again",
} as const;

export const sandboxErrorCodes = { notSandbox: "not_a_sandbox", advancing: "sandbox_clock_advancing" } as const;

const notSandbox: ErrorCase = {
  status: 404,
  message: sandboxMessages.notSandbox,
  description: "The company is a live company: sandbox operations exist only for sandbox companies",
  envelope: "api",
  errorCode: sandboxErrorCodes.notSandbox,
};

const advancing: ErrorCase = {
  status: 503,
  message: sandboxMessages.advancing,
  description:
    `The worker has not finished the advance within ${SANDBOX_ADVANCE_MAX_WAIT_SECONDS} s (a long advance, or no worker ` +
    "running): the advance stays queued and carries on. Repeat the same request after `Retry-After` to wait for it again",
  envelope: "api",
  errorCode: sandboxErrorCodes.advancing,
  headers: ["Retry-After"],
};

export const SandboxClock = Schema.Struct({
  now: IsoOffsetDateTime.annotations({ description: "The sandbox company's time now, on its own clock" }),
}).annotations({ identifier: "SandboxClock" });

export const AdvanceSandboxClock = Schema.Struct({
  to: IsoDateTimeToDate.annotations({
    description:
      `The time to move the clock to: an ISO 8601 date-time with an offset or Z, later than the clock's now and at most ` +
      `${SANDBOX_MAX_ADVANCE_DAYS} days after it`,
  }),
}).annotations({ identifier: "AdvanceSandboxClock" });

export const SandboxMessage = Schema.Struct({
  id: EncryptedId("sandbox message"),
  debt_id: EncryptedId("debt"),
  followup_id: EncryptedId("followup").annotations({ description: "The followup that carried the message" }),
  channel: Schema.String.annotations({
    description: "email, sms, whatsapp, ai_call, voicemail, manual_call or postmail",
  }),
  recipient: Schema.String.annotations({
    description: "The e-mail address, E.164 phone number or postal address the message would have gone to",
  }),
  subject: Schema.NullOr(Schema.String).annotations({ description: "The rendered subject (e-mail only)" }),
  body: Schema.String.annotations({ description: "The rendered text" }),
  outcome: Schema.String.annotations({
    description:
      "What the sandbox provider answered, chosen by the recipient's magic value (docs/sandbox.md): a followup status such as sent, delivered, no_answer, deal_found, deal_not_found, bad_behavior or failed",
  }),
  sent_at: IsoOffsetDateTime.annotations({ description: "When it was sent, on the sandbox company's clock" }),
}).annotations({ identifier: "SandboxMessage" });

export const SandboxMessagesQuery = queryParams(
  Schema.Struct({
    ...paginationFields,
    debt_id: Schema.optionalWith(
      Schema.String.annotations({
        description: "Only the messages of this debt (encrypted id); another company's debt matches nothing",
      }),
      { exact: true },
    ),
  }),
);
export type SandboxMessagesQuery = typeof SandboxMessagesQuery.Type;

const ClockEnvelope = DataEnvelope(SandboxClock).annotations({ identifier: "SandboxClockResponse" });

export const getSandboxClock = endpoint({
  operationId: "getSandboxClock",
  method: "get",
  path: `${API_PREFIX}/sandbox/clock`,
  scope: "debts:read",
  tags: ["Sandbox"],
  summary: "Read the sandbox clock",
  description:
    "A sandbox company's time now. Its timelines, followups and messages run on this clock, which starts at the " +
    "company's creation and moves only when advanced. A live company gets 404.",
  success: { status: 200, description: "The clock", schema: ClockEnvelope },
  errors: [...protectedErrors("debts:read"), notSandbox],
  rateLimit: "read",
});

export const advanceSandboxClock = endpoint({
  operationId: "advanceSandboxClock",
  method: "post",
  path: `${API_PREFIX}/sandbox/clock/advance`,
  scope: "debts:write",
  tags: ["Sandbox"],
  summary: "Advance the sandbox clock",
  description:
    "Moves a sandbox company's clock forward to `to`, running on the way every action its timelines have due: " +
    "each executed, deferred by the compliance guard or blocked, exactly as a live company's would be at those " +
    "times, with their followups, counters, credits and webhooks. Answers once the clock is at `to` (or later, " +
    `when another advance went further) and nothing due up to it is left, waiting up to ` +
    `${SANDBOX_ADVANCE_MAX_WAIT_SECONDS} s for the worker; past that, 503 and the advance carries on (so does an advance ` +
    "queued before any other failure): repeating the request is always safe. `to` must be " +
    `later than the clock's now and at most ${SANDBOX_MAX_ADVANCE_DAYS} days after it (400 naming \`to\`). A live ` +
    "company gets 404.",
  body: { contentType: "application/json", schema: AdvanceSandboxClock, maxBytes: DEFAULT_JSON_BODY_BYTES },
  success: { status: 200, description: "The clock after the advance", schema: ClockEnvelope },
  errors: [...protectedErrors("debts:write"), ...jsonBodyErrors(), notSandbox, advancing],
  rateLimit: "write",
});

export const listSandboxMessages = endpoint({
  operationId: "listSandboxMessages",
  method: "get",
  path: `${API_PREFIX}/sandbox/messages`,
  scope: "debts:read",
  tags: ["Sandbox"],
  summary: "List the sandbox messages",
  description:
    "What a sandbox company's channels would have sent (e-mails, SMS, WhatsApp messages, calls, letters), with " +
    "the rendered subject and body and the outcome the recipient's magic value chose, newest first. An invalid " +
    "`debt_id` is a 400; a valid id of no debt of the company matches nothing. A live company gets 404.",
  query: SandboxMessagesQuery,
  success: {
    status: 200,
    description: "A page of messages",
    schema: ListEnvelope(SandboxMessage).annotations({ identifier: "SandboxMessageList" }),
  },
  errors: [...protectedErrors("debts:read"), errorCases.validation, notSandbox],
  rateLimit: "read",
});
