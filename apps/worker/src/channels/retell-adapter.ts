/**
 * AI voice calls through a Retell-compatible API (docs/decisions/0640,
 * docs/channels.md): each message becomes an outbound call created with
 * the step's agent, voice and maximum duration, our followup in its
 * metadata and our callback URL as its webhook, and answers `accepted`
 * with the call id: the outcome comes by webhook (the api stores it, the
 * provider-events task applies it). Past the send timeout the recovery's
 * `lookup` polls the call: still running, awaiting its analysis for a
 * while, or its outcome.
 *
 * Retell takes no idempotency key: a create is retried only when Retell
 * certainly did not act (a 429, a 503, a connection never made:
 * provider-http.ts); a create whose answer was lost or ambiguous, and a
 * send interrupted before its call id was recorded, fail for good, never
 * placed again (at most once, as for e-mail, decision 0617).
 */
import type { EventIds } from "@dc/db";
import { Retell, type RetellSettings } from "@dc/providers";
import { finalOutcomeOf } from "../provider-events/final-outcome.ts";
import type { ChannelAdapter, OutboundMessage, Outcome, StillRunning } from "./channel-adapter.ts";
import type { ProviderHttp } from "./provider-http.ts";

/** How long a conversation that ended waits for its analysis before it is recorded without one. */
export const analysisWaitMs = 15 * 60_000;

export interface RetellAdapterDependencies {
  readonly settings: RetellSettings & { readonly fromNumber: string };
  readonly http: ProviderHttp;
  /** The api's public origin: Retell posts the call's webhooks to `<origin>/provider-callbacks/retell/<company>`. */
  readonly callbackOrigin: string;
  readonly ids: EventIds;
  readonly now: () => Date;
}

const e164 = /^\+[1-9]\d{6,14}$/;

/** The step's call settings (`configuration` of an `ai_call` step), or why they are unusable. */
export const callSettingsOf = (
  configuration: Readonly<Record<string, unknown>>,
): { readonly settings: Partial<Retell.PhoneCallInput> } | { readonly error: string } => {
  const { agent_id, agent_version, voice_id, max_duration_seconds, from_number } = configuration;
  const settings: { -readonly [K in keyof Retell.PhoneCallInput]?: Retell.PhoneCallInput[K] } = {};
  if (agent_id !== undefined) {
    if (typeof agent_id !== "string" || agent_id === "") return { error: "agent_id must be a non-empty string" };
    settings.agentId = agent_id;
  }
  if (agent_version !== undefined) {
    if (!Number.isSafeInteger(agent_version) || (agent_version as number) < 0)
      return { error: "agent_version must be a non-negative integer" };
    settings.agentVersion = agent_version as number;
  }
  if (voice_id !== undefined) {
    if (typeof voice_id !== "string" || voice_id === "") return { error: "voice_id must be a non-empty string" };
    settings.voiceId = voice_id;
  }
  if (max_duration_seconds !== undefined) {
    const ms = typeof max_duration_seconds === "number" ? max_duration_seconds * 1000 : Number.NaN;
    if (!Number.isSafeInteger(ms) || ms < Retell.minCallDurationMs || ms > Retell.maxCallDurationMs)
      return { error: "max_duration_seconds must be an integer from 60 to 7200" };
    settings.maxDurationMs = ms;
  }
  if (from_number !== undefined) {
    if (typeof from_number !== "string" || !e164.test(from_number))
      return { error: "from_number must be an E.164 number such as +14155550100" };
    settings.fromNumber = from_number;
  }
  return { settings };
};

const failed = (retryable: boolean, error: string): Outcome => ({ status: "failed", retryable, error });

export const retellAdapter = (dependencies: RetellAdapterDependencies): ChannelAdapter => {
  const { settings, http, ids } = dependencies;
  const account = `retell:${settings.apiKey.slice(-6)}`;
  const headers = { authorization: Retell.bearerAuthorization(settings.apiKey), "content-type": "application/json" };

  const create = async (message: OutboundMessage): Promise<Outcome> => {
    const step = callSettingsOf(message.configuration);
    if ("error" in step) return failed(false, `invalid_configuration: ${step.error}`);
    if (!e164.test(message.recipient)) return failed(false, "retell: the recipient is not an E.164 phone number");
    const company = ids.encode("company", message.companyId);
    const request = Retell.createPhoneCallRequest({
      fromNumber: settings.fromNumber,
      toNumber: message.recipient,
      ...step.settings,
      webhookUrl: `${dependencies.callbackOrigin}${Retell.webhookPath(company)}`,
      metadata: {
        company_id: company,
        followup_id: ids.encode("followup", message.followupId),
        idempotency_key: message.idempotencyKey,
      },
      dynamicVariables: {
        script: message.body,
        ...(message.senderName === undefined ? {} : { company_name: message.senderName }),
        ...(message.language === undefined ? {} : { language: message.language }),
      },
    });
    const response = await http.request({
      account,
      method: request.method,
      url: settings.baseUrl + request.path,
      headers,
      body: JSON.stringify(request.body),
    });
    if (!response.ok) {
      if (response.unknown) return failed(false, `retell outcome unknown: ${response.reason}; the call is not placed again`);
      const detail = Retell.parseErrorMessage(response.body);
      return failed(!response.permanent, `retell: ${response.reason}${detail === undefined ? "" : `: ${detail}`}`);
    }
    const created = Retell.parseCreatedCall(response.body);
    return created === undefined
      ? failed(false, "retell: the answer to create-phone-call has no call_id")
      : { status: "accepted", providerMessageId: created.callId };
  };

  const poll = async (callId: string): Promise<Outcome | StillRunning> => {
    const request = Retell.getCallRequest(callId);
    const response = await http.request({
      account,
      method: request.method,
      url: settings.baseUrl + request.path,
      headers,
    });
    if (!response.ok) {
      if (response.permanent) return failed(false, `retell: get-call ${callId}: ${response.reason}`);
      // Retell unreachable: the call may still be running; the recovery asks again a send timeout later.
      throw new Error(`retell: get-call ${callId}: ${response.reason}`);
    }
    const progress = Retell.callProgress(response.body);
    if (progress === undefined) throw new Error(`retell: get-call ${callId} answered no call object`);
    if (progress._tag === "Running") return { status: "running" };
    if (progress._tag === "AwaitingAnalysis") {
      const ended = progress.endedAt?.getTime() ?? 0;
      if (dependencies.now().getTime() - ended < analysisWaitMs) return { status: "running" };
    }
    return finalOutcomeOf(progress.result);
  };

  return {
    send: (messages) => Promise.all(messages.map(create)),
    lookup: async (message, providerMessageId) =>
      providerMessageId === null || providerMessageId === undefined
        ? failed(false, "retell: the send was interrupted before Retell answered; the call is not placed again")
        : poll(providerMessageId),
  };
};
