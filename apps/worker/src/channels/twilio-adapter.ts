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
 * act (provider-http.ts), and a create whose answer was lost is never sent
 * again: Twilio's Message list is searched instead for the message it made
 * (same To, From and body, created at or after the send began, a second's
 * precision). Exactly one found: the send is `sent` with its SID, recorded as
 * an acknowledgement like an answered one. None, several, or the list
 * unavailable: the step fails for good (`outcome unknown`), at most once, as
 * e-mail. After a crash, `lookup` reads the acknowledgement (docs/decisions/
 * 0617) and, without one, searches the list the same way.
 */
import { type Db, type EventIds, findAcknowledgement, findClaimedProviderMessages, recordAcknowledgement } from "@dc/db";
import { Twilio, type TwilioSettings } from "@dc/providers";
import type { ChannelAdapter, OutboundMessage, Outcome } from "./channel-adapter.ts";
import type { ProviderHttp } from "./provider-http.ts";

/** Pages of Twilio's Message list (1000 messages each) searched at most for one lost send. */
const MAX_LIST_PAGES = 5;

/** The SID of the one message in Twilio's list that is the send, null for none, or why the list cannot say. */
type Found = { readonly ok: true; readonly sid: string | null } | { readonly ok: false; readonly reason: string };

export const twilioAdapter = (
  db: Db,
  settings: TwilioSettings,
  publicBaseUrl: string,
  http: ProviderHttp,
  ids: EventIds,
): ChannelAdapter => {
  const authorization = Twilio.basicAuthorization(settings);
  const account = `twilio:${settings.accountSid}`;
  const headers = { authorization, accept: "application/json" };

  const requestOf = (message: OutboundMessage) => {
    const channel = message.channel === "whatsapp" ? "whatsapp" : "sms";
    const from = channel === "whatsapp" ? settings.whatsappFrom : settings.smsFrom;
    if (from === undefined) return { channel, request: undefined };
    const request = Twilio.messageRequest(settings.accountSid, {
      channel,
      to: message.recipient,
      from,
      body: message.body,
      statusCallback: `${publicBaseUrl}${Twilio.statusCallbackPath(ids.encode("company", message.companyId))}`,
    });
    return { channel, request };
  };

  /**
   * The one message of Twilio's list that is this send: its form's To, From
   * and Body, created since `since`, and held by no other send of the company
   * (an identical text to the same number is another followup's message).
   */
  const find = async (companyId: number, form: URLSearchParams, since: Date): Promise<Found> => {
    const to = form.get("To") ?? "";
    const from = form.get("From") ?? "";
    const body = form.get("Body") ?? "";
    // date_created has whole seconds: a message made in the send's first second counts.
    const earliest = Math.floor(since.getTime() / 1000) * 1000;
    const matches: string[] = [];
    let path: string | null = Twilio.messageListRequest(settings.accountSid, { to, from, since }).path;
    for (let page = 0; path !== null; page++) {
      if (page === MAX_LIST_PAGES)
        return { ok: false, reason: `more than ${MAX_LIST_PAGES} pages of messages to search` };
      const response = await http.request({ account, method: "GET", url: `${settings.baseUrl}${path}`, headers });
      if (!response.ok) return { ok: false, reason: `the message list failed (${response.reason})` };
      const list = Twilio.parseMessageList(response.body);
      if (list === undefined) return { ok: false, reason: "the message list answered no messages" };
      for (const listed of list.messages)
        if (
          listed.to === to &&
          listed.from === from &&
          listed.body === body &&
          listed.dateCreated !== null &&
          listed.dateCreated.getTime() >= earliest
        )
          matches.push(listed.sid);
      path = list.nextPageUri;
    }
    const claimed = await findClaimedProviderMessages(db, companyId, matches);
    const unclaimed = matches.filter((sid) => !claimed.has(sid));
    if (unclaimed.length > 1) return { ok: false, reason: `${unclaimed.length} messages in Twilio's list match it` };
    return { ok: true, sid: unclaimed[0] ?? null };
  };

  /** The SID of the message Twilio made for a send whose answer was lost, or the send's failure for good. */
  const reconcile = async (
    companyId: number,
    form: URLSearchParams,
    since: Date,
    lost: string,
  ): Promise<{ readonly sid: string } | { readonly failure: Outcome }> => {
    const found = await find(companyId, form, since);
    if (found.ok && found.sid !== null) return { sid: found.sid };
    const why = found.ok ? "no such message in Twilio's list" : found.reason;
    return {
      failure: { status: "failed", retryable: false, error: `twilio outcome unknown: ${lost}; ${why}; not sent again` },
    };
  };

  const acknowledged = async (message: OutboundMessage, sid: string, response: string): Promise<Outcome> => {
    await recordAcknowledgement(db, {
      companyId: message.companyId,
      idempotencyKey: message.idempotencyKey,
      followupId: message.followupId,
      channel: message.channel,
      providerMessageId: sid,
      response,
    });
    return { status: "sent", providerMessageId: sid };
  };

  const sendOne = async (message: OutboundMessage): Promise<Outcome> => {
    const { channel, request } = requestOf(message);
    if (request === undefined)
      return { status: "failed", retryable: false, error: `channel_not_configured: no Twilio ${channel} sender` };
    const response = await http.request({
      account,
      method: request.method,
      url: `${settings.baseUrl}${request.path}`,
      headers: { ...headers, "content-type": "application/x-www-form-urlencoded" },
      body: request.form.toString(),
    });
    if (!response.ok) {
      if (response.unknown) {
        const found = await reconcile(message.companyId, request.form, message.startedAt ?? message.at, response.reason);
        return "sid" in found ? acknowledged(message, found.sid, "listed") : found.failure;
      }
      const error = Twilio.parseErrorBody(response.body);
      const detail = error === undefined ? response.reason : `twilio error ${error.code}: ${error.message}`;
      return response.permanent
        ? { status: "failed", retryable: false, error: detail }
        : { status: "failed", retryable: true, error: `twilio unavailable: ${response.reason}` };
    }
    const resource = Twilio.parseMessageResource(response.body);
    if (resource === undefined)
      return { status: "failed", retryable: false, error: "twilio answered without a message sid" };
    return acknowledged(message, resource.sid, resource.status);
  };

  return {
    send: (messages) => Promise.all(messages.map(sendOne)),
    lookup: async (message) => {
      const known = await findAcknowledgement(db, message.companyId, message.idempotencyKey);
      if (known !== undefined) return { status: "sent", providerMessageId: known.provider_message_id };
      const { request } = requestOf(message);
      const interrupted = "the send was interrupted before Twilio's answer was recorded";
      if (request === undefined || message.startedAt === undefined)
        return { status: "failed", retryable: false, error: `twilio outcome unknown: ${interrupted}; not sent again` };
      // Not recorded as an acknowledgement: the recovery records the outcome itself, holding the followup's lock.
      const found = await reconcile(message.companyId, request.form, message.startedAt, interrupted);
      return "sid" in found ? { status: "sent", providerMessageId: found.sid } : found.failure;
    },
  };
};
