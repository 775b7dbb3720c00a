/**
 * A fake Retell on a real socket for tests of the AI-call channel: it speaks
 * the documented API (`POST /v2/create-phone-call` and `GET
 * /v2/get-call/{call_id}` with a Bearer API key, Retell's call objects and
 * error bodies) and delivers a call's webhooks (`call_started`,
 * `call_ended` without the analysis, `call_analyzed` with it) to the
 * call's `agent_override.agent.webhook_url`, signed with Retell's own SDK
 * (`x-retell-signature`), so the platform's verifier is checked against the
 * provider's signer. A test scripts each call's end and the API's failures.
 */
import { randomBytes } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { symmetric } from "retell-sdk/lib/webhook_auth";
import { type ProviderReply, type ProviderRequestSeen, startProviderServer } from "./provider-server.ts";

export interface FakeRetellRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: unknown;
}

/** How a call ended, in Retell's fields. */
export interface CallEnd {
  readonly disconnection_reason: string;
  readonly duration_ms: number;
  readonly recording?: boolean;
  /** `call_analysis` as Retell computes it; absent: no `call_analyzed` is possible. */
  readonly call_analysis?: Record<string, unknown>;
}

export interface DeliveredWebhook {
  readonly status: number;
  readonly rawBody: string;
  readonly signature: string;
}

export interface FakeRetell {
  readonly url: string;
  readonly apiKey: string;
  /** Every request received, in order. */
  readonly requests: ReadonlyArray<FakeRetellRequest>;
  /** The call objects, by call id. */
  readonly calls: ReadonlyMap<string, Record<string, unknown>>;
  /** The next `count` API requests are answered `status` (with `Retry-After` when given), before any other handling. */
  readonly failNext: (count: number, status: number, retryAfterSeconds?: number) => void;
  /** The next `count` creates place their call, then close the connection unanswered (the answer is lost). */
  readonly loseNextAnswers: (count: number) => void;
  /** Marks the call ongoing (as after `call_started`). */
  readonly start: (callId: string) => void;
  /** Ends the call as `end` says. */
  readonly end: (callId: string, end: CallEnd) => void;
  /** The webhook Retell would post for `event` of the call: its URL, raw body and signature (now, or at `signedAt`). */
  readonly webhook: (
    callId: string,
    event: "call_started" | "call_ended" | "call_analyzed",
    signedAt?: number,
  ) => Promise<{ readonly url: string; readonly rawBody: string; readonly signature: string }>;
  /** Posts `event` of the call to its webhook URL, signed now (or at `signedAt`); answers what the platform answered. */
  readonly deliver: (
    callId: string,
    event: "call_started" | "call_ended" | "call_analyzed",
    signedAt?: number,
  ) => Promise<DeliveredWebhook>;
  /** Signs any body as Retell signs its webhooks (now, or at `signedAt`): a payload a test altered, say. */
  readonly sign: (rawBody: string, signedAt?: number) => Promise<string>;
  /** Posts a prepared body and signature again (a replay or a forgery). */
  readonly post: (webhookUrl: string, rawBody: string, signature: string | undefined) => Promise<number>;
  readonly close: () => Promise<void>;
}

const parseJson = (body: Buffer): unknown => {
  const text = body.toString("utf8");
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

const e164 = /^\+[1-9]\d{6,14}$/;

export const startFakeRetell = async (apiKey = `key_${randomBytes(12).toString("hex")}`): Promise<FakeRetell> => {
  const requests: FakeRetellRequest[] = [];
  const calls = new Map<string, Record<string, unknown>>();
  const analyses = new Map<string, Record<string, unknown>>();
  const failures: Array<{ status: number; retryAfter: number | undefined }> = [];
  let answersToLose = 0;

  const answer = (status: number, body: unknown, headers: Record<string, string> = {}): ProviderReply => ({
    status,
    body,
    headers,
  });

  const handle = (request: ProviderRequestSeen): ProviderReply => {
    const body = parseJson(request.body);
    const path = new URL(request.url, "http://fake").pathname;
    requests.push({ method: request.method, path, headers: request.headers, body });
    const failure = failures.shift();
    if (failure !== undefined)
      return answer(
        failure.status,
        { status: "error", message: `fake outage (${failure.status})` },
        failure.retryAfter === undefined ? {} : { "retry-after": String(failure.retryAfter) },
      );
    if (request.headers.authorization !== `Bearer ${apiKey}`)
      return answer(401, { status: "error", message: "Invalid API key" });
    if (request.method === "POST" && path === "/v2/create-phone-call") {
      const input = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
      for (const field of ["from_number", "to_number"] as const)
        if (typeof input[field] !== "string" || !e164.test(input[field]))
          return answer(400, { status: "error", message: `${field} must be an E.164 number` });
      const callId = `call_${randomBytes(16).toString("hex")}`;
      const call: Record<string, unknown> = {
        call_type: "phone_call",
        call_id: callId,
        agent_id: typeof input["override_agent_id"] === "string" ? input["override_agent_id"] : "agent_bound_to_number",
        agent_version: typeof input["override_agent_version"] === "number" ? input["override_agent_version"] : 0,
        call_status: "registered",
        direction: "outbound",
        from_number: input["from_number"],
        to_number: input["to_number"],
        metadata: input["metadata"] ?? {},
        retell_llm_dynamic_variables: input["retell_llm_dynamic_variables"] ?? {},
        agent_override: input["agent_override"],
      };
      calls.set(callId, call);
      if (answersToLose > 0) {
        answersToLose -= 1;
        return { status: 201, drop: true };
      }
      const { agent_override: _override, ...visible } = call;
      return answer(201, visible);
    }
    const get = /^\/v2\/get-call\/([^/]+)$/.exec(path);
    if (request.method === "GET" && get !== null) {
      const call = calls.get(decodeURIComponent(get[1]!));
      if (call === undefined) return answer(404, { status: "error", message: "Call not found" });
      const { agent_override: _override, ...visible } = call;
      const analysis = analyses.get(call["call_id"] as string);
      return answer(200, analysis === undefined ? visible : { ...visible, call_analysis: analysis });
    }
    return answer(404, { status: "error", message: "Not found" });
  };

  const server = await startProviderServer(handle);

  const callOf = (callId: string): Record<string, unknown> => {
    const call = calls.get(callId);
    if (call === undefined) throw new Error(`fake retell: no call ${callId}`);
    return call;
  };
  const webhookUrlOf = (call: Record<string, unknown>): string => {
    const override = call["agent_override"] as { agent?: { webhook_url?: string } } | undefined;
    const url = override?.agent?.webhook_url;
    if (url === undefined) throw new Error("fake retell: the call has no webhook_url");
    return url;
  };
  const post = async (webhookUrl: string, rawBody: string, signature: string | undefined): Promise<number> => {
    const response = await fetch(webhookUrl, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(signature === undefined ? {} : { "x-retell-signature": signature }),
      },
      body: rawBody,
    });
    await response.arrayBuffer();
    return response.status;
  };

  const sign: FakeRetell["sign"] = (rawBody, signedAt) => symmetric.sign(rawBody, apiKey, signedAt ?? Date.now());

  const webhook: FakeRetell["webhook"] = async (callId, event, signedAt) => {
    const call = callOf(callId);
    const { agent_override: _override, ...visible } = call;
    const analysis = analyses.get(callId);
    const payload =
      event === "call_analyzed" && analysis !== undefined ? { ...visible, call_analysis: analysis } : visible;
    const rawBody = JSON.stringify({ event, call: payload });
    return { url: webhookUrlOf(call), rawBody, signature: await sign(rawBody, signedAt) };
  };

  return {
    url: server.baseUrl,
    apiKey,
    requests,
    calls,
    failNext: (count, status, retryAfterSeconds) => {
      for (let i = 0; i < count; i++) failures.push({ status, retryAfter: retryAfterSeconds });
    },
    loseNextAnswers: (count) => {
      answersToLose += count;
    },
    start: (callId) => {
      const call = callOf(callId);
      call["call_status"] = "ongoing";
      call["start_timestamp"] = Date.now();
    },
    end: (callId, end) => {
      const call = callOf(callId);
      const connected = ![
        "dial_no_answer",
        "dial_busy",
        "dial_failed",
        "invalid_destination",
        "user_declined",
      ].includes(end.disconnection_reason);
      const started = typeof call["start_timestamp"] === "number" ? call["start_timestamp"] : Date.now();
      Object.assign(call, {
        call_status: connected ? "ended" : "not_connected",
        disconnection_reason: end.disconnection_reason,
        duration_ms: end.duration_ms,
        ...(connected ? { start_timestamp: started, end_timestamp: started + end.duration_ms } : {}),
        ...(end.recording === true ? { recording_url: `https://recordings.fake-retell.test/${callId}.wav` } : {}),
      });
      if (end.call_analysis !== undefined) analyses.set(callId, end.call_analysis);
    },
    webhook,
    sign,
    deliver: async (callId, event, signedAt) => {
      const { url, rawBody, signature } = await webhook(callId, event, signedAt);
      return { status: await post(url, rawBody, signature), rawBody, signature };
    },
    post,
    close: server.close,
  };
};
