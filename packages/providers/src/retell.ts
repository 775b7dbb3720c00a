/**
 * Retell's voice-call protocol, as its API reference documents it: the
 * outbound call we create (`POST /v2/create-phone-call`, Bearer API key),
 * the call we poll (`GET /v2/get-call/{call_id}`), the `x-retell-signature`
 * of its webhooks, and its call objects (webhooks `call_started`,
 * `call_ended`, `call_analyzed`, and the polled call) read into the
 * platform's events (docs/channels.md, docs/decisions/0640).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { CallResult, Detection, ProviderEvent } from "./events.ts";

export const RETELL_SIGNATURE_HEADER = "x-retell-signature";

/** How far a signature's timestamp may be from our clock (Retell's SDK verifies with the same 5 minutes). */
export const signatureToleranceMs = 5 * 60_000;

/** Retell's limits on `max_call_duration_ms`: 1 minute to 2 hours. */
export const minCallDurationMs = 60_000;
export const maxCallDurationMs = 7_200_000;

/** The path of a company's Retell webhook route on the api (the contract's `retellCallEvents`). */
export const webhookPath = (companyPublicId: string): string =>
  `/provider-callbacks/retell/${encodeURIComponent(companyPublicId)}`;

/** The webhook events the platform asks Retell for. */
export const webhookEvents = ["call_started", "call_ended", "call_analyzed"] as const;

/**
 * The agent's post-call analysis fields the platform reads from
 * `call_analysis.custom_analysis_data` (docs/channels.md tells how to
 * declare them on the agent).
 */
export const analysisFields = {
  /** enum: `promise_to_pay`, `refused`, `abusive`, `no_conversation`. */
  outcome: "collection_outcome",
  /** string `YYYY-MM-DD`: the day the debtor promised to pay by. */
  promiseDate: "promise_to_pay_date",
  /** boolean: the debtor disputes owing the debt. */
  dispute: "debt_disputed",
  /** boolean: the debtor objected (to the amount, the contact, the terms) without disputing the debt. */
  objection: "objection_raised",
  /** string: the debtor's words behind a dispute or an objection. */
  excerpt: "detection_excerpt",
} as const;

/** What the platform puts in a call's `metadata`; Retell echoes it in every webhook and in the polled call. */
export interface CallMetadata {
  /** The company's public (encrypted) id. */
  readonly company_id: string;
  /** The followup's public (encrypted) id. */
  readonly followup_id: string;
  /** `<followup public id>:<attempt>`: one call per attempt. */
  readonly idempotency_key: string;
}

export interface PhoneCallInput {
  /** Our number, E.164, owned by or imported to Retell. */
  readonly fromNumber: string;
  /** The debtor's number, E.164. */
  readonly toNumber: string;
  readonly agentId?: string;
  readonly agentVersion?: number;
  readonly voiceId?: string;
  readonly maxDurationMs?: number;
  /** Where Retell posts this call's webhooks (our callback route with the company's public id). */
  readonly webhookUrl: string;
  readonly metadata: CallMetadata;
  /** Strings the agent's prompt reads as `{{name}}`: the rendered script, the debtor, the amount. */
  readonly dynamicVariables: Readonly<Record<string, string>>;
}

/** The create-phone-call request: method, path and JSON body (the caller adds the Bearer header). */
export const createPhoneCallRequest = (input: PhoneCallInput) => {
  const agent: Record<string, unknown> = { webhook_url: input.webhookUrl, webhook_events: [...webhookEvents] };
  if (input.voiceId !== undefined) agent["voice_id"] = input.voiceId;
  if (input.maxDurationMs !== undefined) agent["max_call_duration_ms"] = input.maxDurationMs;
  return {
    method: "POST" as const,
    path: "/v2/create-phone-call",
    body: {
      from_number: input.fromNumber,
      to_number: input.toNumber,
      ...(input.agentId === undefined ? {} : { override_agent_id: input.agentId }),
      ...(input.agentVersion === undefined ? {} : { override_agent_version: input.agentVersion }),
      agent_override: { agent },
      metadata: input.metadata,
      retell_llm_dynamic_variables: input.dynamicVariables,
    },
  };
};

/** The get-call request of the poll. */
export const getCallRequest = (callId: string) => ({
  method: "GET" as const,
  path: `/v2/get-call/${encodeURIComponent(callId)}`,
});

/** The `Authorization` header of every request to Retell's API. */
export const bearerAuthorization = (apiKey: string): string => `Bearer ${apiKey}`;

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
const text = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);
const count = (value: unknown): number | null =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : null;

/** The call id of Retell's answer to a create, or undefined when the answer is not a call. */
export const parseCreatedCall = (json: unknown): { readonly callId: string } | undefined => {
  const callId = text(record(json)?.["call_id"]);
  return callId === null ? undefined : { callId };
};

/** Retell's error body (`{status, message}` or `{error_message}`) as a message, or undefined. */
export const parseErrorMessage = (json: unknown): string | undefined => {
  const body = record(json);
  return text(body?.["message"]) ?? text(body?.["error_message"]) ?? undefined;
};

/**
 * `x-retell-signature`: `v=<unix ms>,d=<hex HMAC-SHA256 of the raw body
 * followed by that timestamp, keyed by the API key>`.
 */
export const retellSignature = (apiKey: string, rawBody: string, timestampMs: number): string =>
  `v=${timestampMs},d=${createHmac("sha256", apiKey)
    .update(rawBody + String(timestampMs), "utf8")
    .digest("hex")}`;

/**
 * Whether `header` signs `rawBody` with `apiKey` at a timestamp within
 * `signatureToleranceMs` of `now` (a replay after that is refused; within it,
 * the inbox's event key stores a replay once). Compares in constant time.
 */
export const verifySignature = (apiKey: string, rawBody: string, header: string | undefined, now: Date): boolean => {
  const match = /^v=(\d{1,16}),d=([0-9a-f]{64})$/i.exec(header ?? "");
  if (match === null) return false;
  const timestamp = Number(match[1]);
  if (Math.abs(now.getTime() - timestamp) > signatureToleranceMs) return false;
  const expected = createHmac("sha256", apiKey)
    .update(rawBody + match[1]!, "utf8")
    .digest();
  const presented = Buffer.from(match[2]!, "hex");
  return presented.byteLength === expected.byteLength && timingSafeEqual(presented, expected);
};

export type WebhookEvent = (typeof webhookEvents)[number];

/** What the api needs of a webhook before storing it: its key in the inbox and our metadata. */
export interface WebhookEnvelope {
  readonly event: string;
  readonly callId: string;
  /** `<call_id>:<event>`: Retell sends each event of a call once; a retry or replay repeats the key. */
  readonly eventKey: string;
  readonly metadata: Partial<CallMetadata>;
}

/** The envelope of a webhook body (`{event, call}`), or undefined when it is not one. */
export const webhookEnvelope = (payload: unknown): WebhookEnvelope | undefined => {
  const body = record(payload);
  const event = text(body?.["event"]);
  const call = record(body?.["call"]);
  const callId = text(call?.["call_id"]);
  if (event === null || callId === null) return undefined;
  const metadata = record(call?.["metadata"]) ?? {};
  const pick = (key: keyof CallMetadata) => text(metadata[key]) ?? undefined;
  const found: { -readonly [K in keyof CallMetadata]?: string } = {};
  for (const key of ["company_id", "followup_id", "idempotency_key"] as const) {
    const value = pick(key);
    if (value !== undefined) found[key] = value;
  }
  return { event, callId, eventKey: `${callId}:${event}`, metadata: found };
};

/** Where a call stands, read from its call object. */
export type CallProgress =
  /** Registered or ringing or ongoing: the outcome is still to come. */
  | { readonly _tag: "Running" }
  /** A conversation that ended; its analysis (the outcome) has not come yet. */
  | { readonly _tag: "AwaitingAnalysis"; readonly endedAt: Date | null; readonly result: CallResult }
  | { readonly _tag: "Final"; readonly result: CallResult };

/** Outbound calls that never reached a person: no conversation, no analysis to wait for. */
const unanswered: ReadonlySet<string> = new Set(["dial_no_answer", "dial_busy", "user_declined", "ivr_reached"]);
/** Calls that failed for a reason a later attempt cannot change. */
const permanentFailures: ReadonlySet<string> = new Set([
  "invalid_destination",
  "marked_as_spam",
  "scam_detected",
  "no_valid_payment",
  "telephony_provider_permission_denied",
]);
/** Calls that failed for a reason that may pass (busy lines at the carrier, Retell's own errors, limits). */
const transientFailures: ReadonlySet<string> = new Set([
  "dial_failed",
  "telephony_provider_unavailable",
  "sip_routing_error",
  "concurrency_limit_reached",
  "no_concurrency_fallback",
  "registered_call_timeout",
]);

const isTransientFailure = (reason: string): boolean => transientFailures.has(reason) || reason.startsWith("error_");

const dayMs = 86_400_000;

/** The day after a promised `YYYY-MM-DD`, 00:00 UTC: the debtor has the whole promised day. */
const promiseEnd = (value: unknown): Date | null => {
  const day = text(value);
  if (day === null || !/^\d{4}-\d{2}-\d{2}$/.test(day)) return null;
  const start = Date.parse(`${day}T00:00:00Z`);
  return Number.isNaN(start) ? null : new Date(start + dayMs);
};

/** The disputes and objections a call's analysis reports (docs/decisions/0641). */
export const detectionsOf = (call: unknown): ReadonlyArray<Detection> => {
  const analysis = record(record(call)?.["call_analysis"]);
  const custom = record(analysis?.["custom_analysis_data"]);
  if (custom === undefined) return [];
  const excerpt = text(custom[analysisFields.excerpt]) ?? text(analysis?.["call_summary"]);
  const found: Detection[] = [];
  if (custom[analysisFields.dispute] === true) found.push({ type: "ai_dispute", excerpt });
  if (custom[analysisFields.objection] === true) found.push({ type: "objection", excerpt });
  return found;
};

/**
 * Where the call object `call` stands (docs/decisions/0640 has the table):
 * not connected (no answer, busy, declined, an IVR) is `no_answer`; voicemail
 * is `no_answer` with `voicemail`; a failure keeps Retell's reason and says
 * whether another attempt may succeed; a conversation takes its outcome from
 * the analysis's `collection_outcome` (`deal_not_found` when it names none)
 * and waits for the analysis until it comes. Undefined when `call` is not a
 * call object.
 */
export const callProgress = (call: unknown): CallProgress | undefined => {
  const body = record(call);
  const callId = text(body?.["call_id"]);
  if (body === undefined || callId === null) return undefined;
  const status = text(body["call_status"]);
  const reason = text(body["disconnection_reason"]);
  const analysis = record(body["call_analysis"]);
  if ((status === "registered" || status === "ongoing") && analysis === undefined) return { _tag: "Running" };
  const direction = body["direction"] === "inbound" || body["direction"] === "outbound" ? body["direction"] : null;
  const base = {
    callId,
    durationMs: count(body["duration_ms"]),
    summary: text(analysis?.["call_summary"]),
    disconnectionReason: reason,
    recordingUrl: text(body["recording_url"]),
    direction,
    phoneNumberUsed: text(body["from_number"]),
    startedAt: count(body["start_timestamp"]) === null ? null : new Date(count(body["start_timestamp"])!),
    detections: detectionsOf(body),
    promiseUntil: null,
    error: null,
    retryable: false,
  } as const;
  const result = (fields: Partial<CallResult> & Pick<CallResult, "status" | "conversation">): CallResult => ({
    ...base,
    voicemail: false,
    ...fields,
  });
  if (reason === "voicemail_reached" || analysis?.["in_voicemail"] === true)
    return { _tag: "Final", result: result({ status: "no_answer", conversation: false, voicemail: true }) };
  if (reason !== null && unanswered.has(reason))
    return { _tag: "Final", result: result({ status: "no_answer", conversation: false }) };
  if (reason !== null && (permanentFailures.has(reason) || isTransientFailure(reason)))
    return {
      _tag: "Final",
      result: result({
        status: "failed",
        conversation: false,
        error: `retell: ${reason}`,
        retryable: isTransientFailure(reason),
      }),
    };
  if (status === "not_connected" || status === "error")
    return {
      _tag: "Final",
      result: result({ status: "failed", conversation: false, error: `retell: ${reason ?? status}`, retryable: true }),
    };
  const custom = record(analysis?.["custom_analysis_data"]);
  const outcome = custom?.[analysisFields.outcome];
  const conversation =
    outcome === "promise_to_pay"
      ? result({
          status: "deal_found",
          conversation: true,
          promiseUntil: promiseEnd(custom?.[analysisFields.promiseDate]),
        })
      : outcome === "abusive"
        ? result({ status: "bad_behavior", conversation: true })
        : outcome === "no_conversation"
          ? result({ status: "no_answer", conversation: false })
          : result({ status: "deal_not_found", conversation: true });
  if (analysis === undefined) {
    const ended = count(body["end_timestamp"]);
    return { _tag: "AwaitingAnalysis", endedAt: ended === null ? null : new Date(ended), result: conversation };
  }
  return { _tag: "Final", result: conversation };
};

/**
 * A stored webhook body as the platform's event: the final outcome of its
 * followup once the call's outcome is known (`call_ended` of a call that
 * never reached a conversation, `call_analyzed` of any call); otherwise
 * (`call_started`, `call_ended` of a conversation awaiting its analysis,
 * other events) nothing to apply.
 */
export const parseEvent = (payload: unknown): ProviderEvent => {
  const envelope = webhookEnvelope(payload);
  if (envelope === undefined) return { _tag: "Ignored", reason: "retell: not a call webhook" };
  if (envelope.event !== "call_ended" && envelope.event !== "call_analyzed")
    return { _tag: "Ignored", reason: `retell: ${envelope.event} changes no outcome` };
  const progress = callProgress(record(payload)?.["call"]);
  if (progress === undefined || progress._tag !== "Final")
    return { _tag: "Ignored", reason: `retell: ${envelope.event} of ${envelope.callId} awaits its analysis` };
  return {
    _tag: "FinalOutcome",
    providerMessageId: envelope.callId,
    followupPublicId: envelope.metadata.followup_id ?? null,
    outcome: progress.result,
  };
};
