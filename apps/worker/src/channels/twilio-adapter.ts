/**
 * SMS and WhatsApp through Twilio's Messages API (docs/channels.md,
 * docs/decisions/0630): one create-message request per message, through the
 * provider HTTP client (rate, concurrency, retries), with the company's
 * status callback URL. Twilio's answer makes the followup `sent` with the
 * message SID; its status callbacks move it on later. A permanent 4xx fails
 * the step for good with Twilio's code and message; an outage that outlasts
 * the retries fails it retryable, with the reason.
 *
 * Twilio's Messages API takes no idempotency key: every create it accepts
 * is a new SMS. So a create is repeated only when Twilio certainly did not
 * act (provider-http.ts), and a create whose answer was lost fails for good
 * (`outcome unknown`) rather than risk a second message. Nor can Twilio be
 * asked what it received by our key: each answer is recorded as an
 * acknowledgement (docs/decisions/0617) and `lookup` reads it; a send with
 * none fails for good, never sent again: at most once, as e-mail.
 */
import { type Db, type EventIds, findAcknowledgement, recordAcknowledgement } from "@dc/db";
import { Twilio, type TwilioSettings } from "@dc/providers";
import type { ChannelAdapter, OutboundMessage, Outcome } from "./channel-adapter.ts";
import type { ProviderHttp } from "./provider-http.ts";

export const twilioAdapter = (
  db: Db,
  settings: TwilioSettings,
  publicBaseUrl: string,
  http: ProviderHttp,
  ids: EventIds,
): ChannelAdapter => {
  const authorization = Twilio.basicAuthorization(settings);
  const account = `twilio:${settings.accountSid}`;

  const sendOne = async (message: OutboundMessage): Promise<Outcome> => {
    const channel = message.channel === "whatsapp" ? "whatsapp" : "sms";
    const from = channel === "whatsapp" ? settings.whatsappFrom : settings.smsFrom;
    if (from === undefined)
      return { status: "failed", retryable: false, error: `channel_not_configured: no Twilio ${channel} sender` };
    const request = Twilio.messageRequest(settings.accountSid, {
      channel,
      to: message.recipient,
      from,
      body: message.body,
      statusCallback: `${publicBaseUrl}${Twilio.statusCallbackPath(ids.encode("company", message.companyId))}`,
    });
    const response = await http.request({
      account,
      method: request.method,
      url: `${settings.baseUrl}${request.path}`,
      headers: {
        authorization,
        accept: "application/json",
        "content-type": "application/x-www-form-urlencoded",
      },
      body: request.form.toString(),
    });
    if (!response.ok) {
      if (response.unknown)
        return { status: "failed", retryable: false, error: `twilio outcome unknown: ${response.reason}; not sent again` };
      const error = Twilio.parseErrorBody(response.body);
      const detail = error === undefined ? response.reason : `twilio error ${error.code}: ${error.message}`;
      return response.permanent
        ? { status: "failed", retryable: false, error: detail }
        : { status: "failed", retryable: true, error: `twilio unavailable: ${response.reason}` };
    }
    const resource = Twilio.parseMessageResource(response.body);
    if (resource === undefined)
      return { status: "failed", retryable: false, error: "twilio answered without a message sid" };
    await recordAcknowledgement(db, {
      companyId: message.companyId,
      idempotencyKey: message.idempotencyKey,
      followupId: message.followupId,
      channel: message.channel,
      providerMessageId: resource.sid,
      response: resource.status,
    });
    return { status: "sent", providerMessageId: resource.sid };
  };

  return {
    send: (messages) => Promise.all(messages.map(sendOne)),
    lookup: async (message) => {
      const acknowledged = await findAcknowledgement(db, message.companyId, message.idempotencyKey);
      return acknowledged === undefined
        ? {
            status: "failed",
            retryable: false,
            error: "twilio outcome unknown: the send was interrupted before Twilio's answer was recorded; not sent again",
          }
        : { status: "sent", providerMessageId: acknowledged.provider_message_id };
    },
  };
};
