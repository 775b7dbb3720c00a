/**
 * Twilio's Programmable Messaging protocol (SMS and WhatsApp), as its API
 * reference documents it: the Messages resource we create
 * (`POST /2010-04-01/Accounts/{AccountSid}/Messages.json`, HTTP Basic auth
 * with the account SID and auth token, form fields `To`, `From`, `Body`,
 * `StatusCallback`; a WhatsApp address is `whatsapp:+E164`), the
 * Message list we search for a create whose answer was lost (`GET` on the
 * same path, filtered by `To`, `From` and `DateSent>=`), the
 * `X-Twilio-Signature` of its webhooks, and its status callbacks and
 * incoming messages parsed into the platform's events (docs/channels.md).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { DeliveryStatus, ProviderEvent, ReceivedCallback } from "./events.ts";

export const TWILIO_SIGNATURE_HEADER = "x-twilio-signature";

export type TwilioChannel = "sms" | "whatsapp";

/** Form parameters as Twilio posts them: every value a string (a repeated key keeps its values in order). */
export type TwilioParams = ReadonlyArray<readonly [string, string]>;

export interface TwilioAccount {
  readonly accountSid: string;
  readonly authToken: string;
}

export interface TwilioMessageInput {
  readonly channel: TwilioChannel;
  /** E.164. */
  readonly to: string;
  /** Our sender for this channel, E.164. */
  readonly from: string;
  readonly body: string;
  readonly statusCallback: string;
}

const address = (channel: TwilioChannel, number: string): string =>
  channel === "whatsapp" ? `whatsapp:${number}` : number;

/** The create-message request: path and form body (the caller adds Basic auth and the idempotency header). */
export const messageRequest = (accountSid: string, input: TwilioMessageInput) => ({
  method: "POST" as const,
  path: `/2010-04-01/Accounts/${encodeURIComponent(accountSid)}/Messages.json`,
  form: new URLSearchParams({
    To: address(input.channel, input.to),
    From: address(input.channel, input.from),
    Body: input.body,
    StatusCallback: input.statusCallback,
  }),
});

/**
 * The path of the status callback we give Twilio for a company's messages
 * (the contract's `twilioMessageStatus`, under the api's `PUBLIC_BASE_URL`).
 */
export const statusCallbackPath = (companyPublicId: string): string =>
  `/provider-callbacks/twilio/${encodeURIComponent(companyPublicId)}/status`;

/** The `Authorization` header of every request to Twilio's REST API. */
export const basicAuthorization = (account: TwilioAccount): string =>
  `Basic ${Buffer.from(`${account.accountSid}:${account.authToken}`).toString("base64")}`;

/** What we keep of Twilio's answer to a create: the message SID and its first status. */
export const parseMessageResource = (json: unknown): { readonly sid: string; readonly status: string } | undefined => {
  if (typeof json !== "object" || json === null) return undefined;
  const { sid, status } = json as Record<string, unknown>;
  return typeof sid === "string" && sid !== ""
    ? { sid, status: typeof status === "string" ? status : "queued" }
    : undefined;
};

/** Messages a list page holds at most (Twilio's `PageSize` maximum). */
export const MESSAGE_LIST_PAGE_SIZE = 1000;

/**
 * The first page of Twilio's Message list (`GET .../Messages.json`) of the
 * messages from `from` to `to` (as the create's form has them, a WhatsApp one
 * prefixed) sent on or after midnight GMT of the day of `since` (`DateSent>=`,
 * a date only). Its `next_page_uri` is the next page's path and query.
 */
export const messageListRequest = (
  accountSid: string,
  filter: { readonly to: string; readonly from: string; readonly since: Date },
) => ({
  method: "GET" as const,
  path: `/2010-04-01/Accounts/${encodeURIComponent(accountSid)}/Messages.json?${new URLSearchParams({
    To: filter.to,
    From: filter.from,
    "DateSent>": filter.since.toISOString().slice(0, 10),
    PageSize: String(MESSAGE_LIST_PAGE_SIZE),
  }).toString()}`,
});

/** A message of Twilio's Message list: what a lost create is matched by. */
export interface ListedMessage {
  readonly sid: string;
  readonly to: string;
  readonly from: string;
  readonly body: string;
  /** `date_created` (RFC 2822, to the second); null when absent or unreadable. */
  readonly dateCreated: Date | null;
}

/** A page of Twilio's Message list (`{messages, next_page_uri, ...}`), or undefined when it is not one. */
export const parseMessageList = (
  json: unknown,
): { readonly messages: ReadonlyArray<ListedMessage>; readonly nextPageUri: string | null } | undefined => {
  if (typeof json !== "object" || json === null) return undefined;
  const { messages, next_page_uri: next } = json as Record<string, unknown>;
  if (!Array.isArray(messages)) return undefined;
  const text = (value: unknown): string => (typeof value === "string" ? value : "");
  const listed = messages.flatMap((entry): ListedMessage[] => {
    if (typeof entry !== "object" || entry === null) return [];
    const { sid, to, from, body, date_created: created } = entry as Record<string, unknown>;
    if (typeof sid !== "string" || sid === "") return [];
    const at = typeof created === "string" ? Date.parse(created) : Number.NaN;
    return [
      { sid, to: text(to), from: text(from), body: text(body), dateCreated: Number.isNaN(at) ? null : new Date(at) },
    ];
  });
  return { messages: listed, nextPageUri: typeof next === "string" && next !== "" ? next : null };
};

/** Twilio's error body (`{code, message, more_info, status}`) as `<code>: <message>`, or undefined. */
export const parseErrorBody = (json: unknown): { readonly code: string; readonly message: string } | undefined => {
  if (typeof json !== "object" || json === null) return undefined;
  const { code, message } = json as Record<string, unknown>;
  if (typeof code !== "number" && typeof code !== "string") return undefined;
  return { code: String(code), message: typeof message === "string" ? message : "" };
};

/**
 * `X-Twilio-Signature`: base64 HMAC-SHA1, keyed by the auth token, of the
 * full URL Twilio requested followed by each POST parameter's name and value,
 * sorted by name (values of one name in their sorted order).
 */
export const twilioSignature = (authToken: string, url: string, params: TwilioParams): string => {
  const sorted = [...params].sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  const data = url + sorted.map(([name, value]) => name + value).join("");
  return createHmac("sha1", authToken).update(data, "utf8").digest("base64");
};

/** Whether `signature` is Twilio's for this request; constant time. */
export const verifyTwilioSignature = (
  authToken: string,
  url: string,
  params: TwilioParams,
  signature: string | undefined,
): boolean => {
  if (signature === undefined || signature === "") return false;
  const expected = Buffer.from(twilioSignature(authToken, url, params));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
};

/** The two webhooks Twilio calls: a message's status callback and an incoming message. */
export type TwilioCallbackKind = "status" | "inbound";

const valueOf = (params: TwilioParams, name: string): string | undefined => params.find(([key]) => key === name)?.[1];

/**
 * The stored form of a Twilio webhook, keyed so that Twilio's retries and a
 * replay store nothing new: a status callback by message SID and status, an
 * incoming message by its SID. Undefined when the request lacks its SID.
 */
export const receivedCallback = (kind: TwilioCallbackKind, params: TwilioParams): ReceivedCallback | undefined => {
  const sid = valueOf(params, "MessageSid") ?? valueOf(params, "SmsSid");
  if (sid === undefined || sid === "") return undefined;
  const status = valueOf(params, "MessageStatus") ?? valueOf(params, "SmsStatus") ?? "";
  return {
    eventKey: kind === "status" ? `status:${sid}:${status}` : `inbound:${sid}`,
    payload: { kind, params: Object.fromEntries(params) },
  };
};

/** Twilio's message statuses, mapped to a followup's (docs/channels.md); intermediate ones change nothing. */
const deliveryStatuses: Readonly<Record<string, DeliveryStatus>> = {
  sent: "sent",
  delivered: "delivered",
  read: "delivered",
  undelivered: "failed",
  failed: "failed",
  canceled: "failed",
};

const unprefixed = (value: string): { readonly channel: TwilioChannel; readonly number: string } =>
  value.startsWith("whatsapp:")
    ? { channel: "whatsapp", number: value.slice("whatsapp:".length) }
    : { channel: "sms", number: value };

/** A stored Twilio webhook as the platform's event. */
export const parseEvent = (payload: unknown): ProviderEvent => {
  const { kind, params } = (payload ?? {}) as { kind?: unknown; params?: Record<string, unknown> };
  const text = (name: string): string => {
    const value = params?.[name];
    return typeof value === "string" ? value : "";
  };
  const sid = text("MessageSid") || text("SmsSid");
  if (sid === "") return { _tag: "Ignored", reason: "no MessageSid" };
  if (kind === "status") {
    const reported = text("MessageStatus") || text("SmsStatus");
    const status = deliveryStatuses[reported];
    if (status === undefined) return { _tag: "Ignored", reason: `intermediate status ${reported || "(none)"}` };
    const errorCode = text("ErrorCode");
    const errorMessage = text("ErrorMessage");
    return {
      _tag: "DeliveryUpdate",
      providerMessageId: sid,
      status,
      errorCode: status === "failed" && errorCode !== "" ? errorCode : null,
      errorMessage: status === "failed" && errorMessage !== "" ? errorMessage : null,
    };
  }
  if (kind === "inbound") {
    const from = unprefixed(text("From"));
    return {
      _tag: "InboundMessage",
      channel: from.channel,
      from: from.number,
      to: unprefixed(text("To")).number,
      body: text("Body"),
      providerMessageId: sid,
    };
  }
  return { _tag: "Ignored", reason: `unknown callback kind ${String(kind)}` };
};
