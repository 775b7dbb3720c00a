import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { parseProviderEvent, Retell } from "../src/index.ts";

const apiKey = "key_6f1a2b3c4d5e";
const metadata = { company_id: "cmp_pub", followup_id: "fu_pub", idempotency_key: "fu_pub:1" };

/** A call object as Retell's get-call and webhooks carry it. */
const call = (fields: Record<string, unknown> = {}) => ({
  call_type: "phone_call",
  call_id: "call_8d2f",
  agent_id: "agent_1",
  call_status: "ended",
  direction: "outbound",
  from_number: "+14155550100",
  to_number: "+14155550199",
  metadata,
  start_timestamp: 1_790_000_000_000,
  end_timestamp: 1_790_000_095_000,
  duration_ms: 95_000,
  disconnection_reason: "user_hangup",
  recording_url: "https://recordings.example/call_8d2f.wav",
  ...fields,
});
const analysis = (custom: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  call_analysis: {
    call_summary: "The debtor talked about the invoice.",
    in_voicemail: false,
    custom_analysis_data: custom,
    ...extra,
  },
});

describe("the create-phone-call request", () => {
  it("carries the numbers, the agent, the voice, the duration, our webhook and metadata", () => {
    const request = Retell.createPhoneCallRequest({
      fromNumber: "+14155550100",
      toNumber: "+14155550199",
      agentId: "agent_1",
      agentVersion: 3,
      voiceId: "11labs-Adrian",
      maxDurationMs: 300_000,
      webhookUrl: "https://api.example/provider-callbacks/retell/cmp_pub",
      metadata,
      dynamicVariables: { script: "Hello" },
    });
    expect(request).toEqual({
      method: "POST",
      path: "/v2/create-phone-call",
      body: {
        from_number: "+14155550100",
        to_number: "+14155550199",
        override_agent_id: "agent_1",
        override_agent_version: 3,
        agent_override: {
          agent: {
            webhook_url: "https://api.example/provider-callbacks/retell/cmp_pub",
            webhook_events: ["call_started", "call_ended", "call_analyzed"],
            voice_id: "11labs-Adrian",
            max_call_duration_ms: 300_000,
          },
        },
        metadata,
        retell_llm_dynamic_variables: { script: "Hello" },
      },
    });
    expect(Retell.getCallRequest("call/1")).toEqual({ method: "GET", path: "/v2/get-call/call%2F1" });
    expect(Retell.bearerAuthorization(apiKey)).toBe(`Bearer ${apiKey}`);
  });

  it("reads the call id of the answer and the message of an error", () => {
    expect(Retell.parseCreatedCall(call({ call_status: "registered" }))).toEqual({ callId: "call_8d2f" });
    expect(Retell.parseCreatedCall({ status: "error" })).toBeUndefined();
    expect(Retell.parseErrorMessage({ status: 400, message: "Invalid to_number" })).toBe("Invalid to_number");
    expect(Retell.parseErrorMessage("nope")).toBeUndefined();
  });
});

describe("x-retell-signature", () => {
  const body = JSON.stringify({ event: "call_ended", call: call() });
  const now = new Date(1_790_000_100_000);
  // Computed independently: HMAC-SHA256 of the body followed by the timestamp, hex.
  const header = `v=${now.getTime()},d=${createHmac("sha256", apiKey)
    .update(body + String(now.getTime()))
    .digest("hex")}`;

  it("signs as Retell documents and verifies its own signature", () => {
    expect(Retell.retellSignature(apiKey, body, now.getTime())).toBe(header);
    expect(Retell.verifySignature(apiKey, body, header, now)).toBe(true);
    expect(Retell.verifySignature(apiKey, body, header, new Date(now.getTime() + Retell.signatureToleranceMs))).toBe(
      true,
    );
  });

  it("refuses a missing, malformed, forged, tampered or stale signature", () => {
    expect(Retell.verifySignature(apiKey, body, undefined, now)).toBe(false);
    expect(Retell.verifySignature(apiKey, body, "garbage", now)).toBe(false);
    expect(Retell.verifySignature("another_key", body, header, now)).toBe(false);
    expect(Retell.verifySignature(apiKey, body.replace("user_hangup", "agent_hangup"), header, now)).toBe(false);
    expect(Retell.verifySignature(apiKey, body, header.replace(/v=\d+/, `v=${now.getTime() + 1}`), now)).toBe(false);
    const late = new Date(now.getTime() + Retell.signatureToleranceMs + 1);
    expect(Retell.verifySignature(apiKey, body, header, late)).toBe(false);
  });

  it("keys each event of a call once in the inbox and reads our metadata", () => {
    expect(Retell.webhookEnvelope({ event: "call_analyzed", call: call() })).toEqual({
      event: "call_analyzed",
      callId: "call_8d2f",
      eventKey: "call_8d2f:call_analyzed",
      metadata,
    });
    expect(Retell.webhookEnvelope({ event: "call_ended" })).toBeUndefined();
    expect(Retell.webhookEnvelope({ event: "call_ended", call: call({ metadata: "x" }) })?.metadata).toEqual({});
  });
});

describe("a call's outcome", () => {
  const final = (fields: Record<string, unknown>) => {
    const progress = Retell.callProgress(call(fields));
    if (progress?._tag !== "Final") throw new Error(`not final: ${JSON.stringify(progress)}`);
    return progress.result;
  };

  it("is still running while registered or ongoing", () => {
    for (const call_status of ["registered", "ongoing"])
      expect(Retell.callProgress(call({ call_status, disconnection_reason: undefined }))).toEqual({ _tag: "Running" });
    expect(Retell.callProgress({ call_status: "ended" })).toBeUndefined();
  });

  it("maps every field of an analysed conversation", () => {
    const result = final(analysis({ collection_outcome: "promise_to_pay", promise_to_pay_date: "2026-09-30" }));
    expect(result).toEqual({
      status: "deal_found",
      callId: "call_8d2f",
      startedAt: new Date(1_790_000_000_000),
      conversation: true,
      voicemail: false,
      durationMs: 95_000,
      summary: "The debtor talked about the invoice.",
      promiseUntil: new Date("2026-10-01T00:00:00Z"),
      disconnectionReason: "user_hangup",
      recordingUrl: "https://recordings.example/call_8d2f.wav",
      direction: "outbound",
      phoneNumberUsed: "+14155550100",
      error: null,
      retryable: false,
      detections: [],
    });
  });

  it("takes the outcome from the analysis, a refusal when it names none", () => {
    expect(
      final(analysis({ collection_outcome: "promise_to_pay", promise_to_pay_date: "soon" })).promiseUntil,
    ).toBeNull();
    expect(final(analysis({ collection_outcome: "refused" }))).toMatchObject({
      status: "deal_not_found",
      conversation: true,
    });
    expect(final(analysis({ collection_outcome: "abusive" }))).toMatchObject({
      status: "bad_behavior",
      conversation: true,
    });
    expect(final(analysis({ collection_outcome: "no_conversation" }))).toMatchObject({
      status: "no_answer",
      conversation: false,
    });
    expect(final(analysis({}))).toMatchObject({ status: "deal_not_found", conversation: true });
    expect(final({ call_analysis: { call_summary: "s" } })).toMatchObject({ status: "deal_not_found", summary: "s" });
  });

  it("waits for the analysis of a conversation that ended", () => {
    const progress = Retell.callProgress(call());
    expect(progress).toMatchObject({ _tag: "AwaitingAnalysis", endedAt: new Date(1_790_000_095_000) });
    expect(progress?._tag === "AwaitingAnalysis" && progress.result.status).toBe("deal_not_found");
  });

  it("ends a call that reached no one without waiting for an analysis", () => {
    for (const reason of ["dial_no_answer", "dial_busy", "user_declined", "ivr_reached"])
      expect(final({ disconnection_reason: reason, call_status: "not_connected" })).toMatchObject({
        status: "no_answer",
        conversation: false,
        voicemail: false,
        disconnectionReason: reason,
      });
    expect(final({ disconnection_reason: "voicemail_reached", duration_ms: 25_000 })).toMatchObject({
      status: "no_answer",
      voicemail: true,
      durationMs: 25_000,
    });
    expect(final({ disconnection_reason: "agent_hangup", ...analysis({}, { in_voicemail: true }) })).toMatchObject({
      status: "no_answer",
      voicemail: true,
    });
  });

  it("fails with Retell's reason, retryable when another attempt may succeed", () => {
    expect(final({ disconnection_reason: "invalid_destination", call_status: "not_connected" })).toMatchObject({
      status: "failed",
      error: "retell: invalid_destination",
      retryable: false,
    });
    for (const reason of [
      "dial_failed",
      "concurrency_limit_reached",
      "error_llm_websocket_open",
      "telephony_provider_unavailable",
    ])
      expect(final({ disconnection_reason: reason })).toMatchObject({ status: "failed", retryable: true });
    expect(final({ call_status: "error", disconnection_reason: undefined })).toMatchObject({
      status: "failed",
      error: "retell: error",
      retryable: true,
    });
  });

  it("reads disputes and objections from the analysis", () => {
    const both = final(
      analysis({
        collection_outcome: "refused",
        debt_disputed: true,
        objection_raised: true,
        detection_excerpt: "I never bought this",
      }),
    );
    expect(both.detections).toEqual([
      { type: "ai_dispute", excerpt: "I never bought this" },
      { type: "objection", excerpt: "I never bought this" },
    ]);
    expect(final(analysis({ objection_raised: true })).detections).toEqual([
      { type: "objection", excerpt: "The debtor talked about the invoice." },
    ]);
    expect(final(analysis({ debt_disputed: "yes" })).detections).toEqual([]);
  });
});

describe("Retell webhooks as events", () => {
  const event = (name: string, fields: Record<string, unknown>) =>
    parseProviderEvent("retell", { event: name, call: call(fields) });

  it("applies call_analyzed, and call_ended of a call that reached no one", () => {
    expect(event("call_analyzed", analysis({ collection_outcome: "refused" }))).toMatchObject({
      _tag: "FinalOutcome",
      providerMessageId: "call_8d2f",
      followupPublicId: "fu_pub",
      outcome: { status: "deal_not_found" },
    });
    expect(event("call_ended", { disconnection_reason: "dial_no_answer" })).toMatchObject({
      _tag: "FinalOutcome",
      outcome: { status: "no_answer" },
    });
  });

  it("changes nothing on call_started, on call_ended awaiting its analysis, or on other events", () => {
    expect(event("call_started", { call_status: "ongoing", disconnection_reason: undefined })._tag).toBe("Ignored");
    expect(event("call_ended", {})._tag).toBe("Ignored");
    expect(event("transcript_updated", {})._tag).toBe("Ignored");
    expect(parseProviderEvent("retell", { nothing: true })._tag).toBe("Ignored");
  });
});
