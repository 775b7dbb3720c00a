/**
 * A provider's final result (an AI call's, reported by webhook or by the
 * recovery's poll) as the engine's outcome of the send (docs/decisions/0640):
 * one mapping for both, so a call settled either way is recorded the same,
 * with every field the provider reported.
 */
import type { CallResult } from "@dc/providers";
import type { FinalOutcome } from "../channels/channel-adapter.ts";

export const finalOutcomeOf = (result: CallResult, providerMessageId: string = result.callId): FinalOutcome => {
  const call = {
    callId: result.callId,
    startedAt: result.startedAt,
    disconnectionReason: result.disconnectionReason,
    recordingUrl: result.recordingUrl,
    direction: result.direction,
    phoneNumberUsed: result.phoneNumberUsed,
  };
  if (result.status === "failed")
    return {
      status: "failed",
      retryable: result.retryable,
      error: result.error ?? `${result.callId}: the call failed`,
      providerMessageId,
      ...(result.durationMs === null ? {} : { durationMs: result.durationMs }),
      call,
    };
  return {
    status: result.status,
    conversation: result.conversation,
    voicemail: result.voicemail,
    ...(result.durationMs === null ? {} : { durationMs: result.durationMs }),
    ...(result.summary === null ? {} : { summary: result.summary }),
    ...(result.promiseUntil === null ? {} : { promiseUntil: result.promiseUntil }),
    providerMessageId,
    call,
    detections: result.detections,
  };
};
