/**
 * A fake Twilio on a real socket, speaking the Messages API as Twilio
 * documents it: `POST /2010-04-01/Accounts/{AccountSid}/Messages.json` with
 * HTTP Basic auth (account SID, auth token) and a form body (`To`, `From`,
 * `Body`, `StatusCallback`), answered 201 with the message resource
 * (`sid`, `status: "queued"`), 401 `{code: 20003}` for wrong credentials and
 * 400 `{code: 21604}` without `To`. Like Twilio, it takes no idempotency
 * key: every create it accepts is a new message, a repeated one included.
 * `GET` on the same path is the Message list: filtered by `To`, `From` and
 * `DateSent` (`DateSent>=`/`DateSent<=` a `YYYY-MM-DD` GMT day), newest
 * first, `PageSize` per page with `next_page_uri` (a `Page` number) for
 * the next, `date_created` and `date_sent` in RFC 2822; a message counts as
 * sent when it is created, on the fake's clock (`now`). It signs
 * the webhooks it posts (`X-Twilio-Signature`: base64 HMAC-SHA1 of the URL
 * and the sorted parameters, keyed by the auth token), computed here on the
 * provider's side, independently of the platform's verifier.
 */
import { createHmac, randomBytes } from "node:crypto";
import { type ProviderReply, type ProviderServer, startProviderServer } from "./provider-server.ts";

export interface FakeTwilioMessage {
  readonly sid: string;
  readonly form: Readonly<Record<string, string>>;
  readonly authorization: string | undefined;
  /** When Twilio made it (the fake's clock): its `date_created` and `date_sent`. */
  readonly createdAt: Date;
}

export interface FakeTwilio {
  readonly server: ProviderServer;
  readonly baseUrl: string;
  /** Messages created, in order: what the debtors' phones receive. */
  readonly messages: ReadonlyArray<FakeTwilioMessage>;
  /** Answers the next create requests with these replies first (an outage, a rate limit, a refusal). */
  readonly failNext: (...replies: ReadonlyArray<ProviderReply>) => void;
  /** The next `count` creates make their message, then close the connection unanswered (the answer is lost). */
  readonly loseNextAnswers: (count: number) => void;
  /** The query of every Message list request (`GET`) that reached the server (outages included), in order. */
  readonly lists: ReadonlyArray<URLSearchParams>;
  /** The next `count` Message list requests answer `status` with Twilio's error body. */
  readonly failLists: (count: number, status: number) => void;
  /**
   * The parameters of Twilio's incoming-message webhook for a message a
   * debtor sent from `from` to our number `to` (a WhatsApp one prefixed
   * `whatsapp:`), with a new message SID.
   */
  readonly incoming: (message: {
    readonly from: string;
    readonly to: string;
    readonly body: string;
    readonly channel?: "sms" | "whatsapp";
  }) => Record<string, string>;
  /** Twilio's `X-Twilio-Signature` of a webhook to `url` with `params`. */
  readonly sign: (url: string, params: Readonly<Record<string, string>>) => string;
  /** Posts a webhook as Twilio does: form-encoded, signed (or with the given signature; `null`: unsigned). */
  readonly post: (
    url: string,
    params: Readonly<Record<string, string>>,
    signature?: string | null,
  ) => Promise<Response>;
  readonly close: () => Promise<void>;
}

/** Twilio's RFC 2822 dates: `Tue, 08 Jan 2030 09:00:00 +0000`. */
const rfc2822 = (date: Date): string => date.toUTCString().replace("GMT", "+0000");

export const startFakeTwilio = async (
  account: { readonly accountSid: string; readonly authToken: string },
  options: { readonly now?: () => Date } = {},
): Promise<FakeTwilio> => {
  const now = options.now ?? (() => new Date());
  const messages: FakeTwilioMessage[] = [];
  const pending: ProviderReply[] = [];
  const lists: URLSearchParams[] = [];
  const listOutages: number[] = [];
  let answersToLose = 0;
  const expectedAuth = `Basic ${Buffer.from(`${account.accountSid}:${account.authToken}`).toString("base64")}`;
  const path = `/2010-04-01/Accounts/${account.accountSid}/Messages.json`;
  const resource = (message: FakeTwilioMessage) => ({
    sid: message.sid,
    account_sid: account.accountSid,
    to: message.form["To"],
    from: message.form["From"],
    body: message.form["Body"],
    status: "queued",
    direction: "outbound-api",
    date_created: rfc2822(message.createdAt),
    date_updated: rfc2822(message.createdAt),
    date_sent: rfc2822(message.createdAt),
    error_code: null,
    error_message: null,
    api_version: "2010-04-01",
  });
  /** A page of the Message list, as Twilio filters and pages it. */
  const list = (query: URLSearchParams): ProviderReply => {
    lists.push(query);
    const outage = listOutages.shift();
    if (outage !== undefined)
      return { status: outage, body: { code: 20500, message: "Internal Server Error", status: outage } };
    const day = (date: Date) => date.toISOString().slice(0, 10);
    const to = query.get("To");
    const from = query.get("From");
    const on = query.get("DateSent");
    const after = query.get("DateSent>");
    const before = query.get("DateSent<");
    const matching = messages
      .filter(
        (message) =>
          (to === null || message.form["To"] === to) &&
          (from === null || message.form["From"] === from) &&
          (on === null || day(message.createdAt) === on) &&
          (after === null || day(message.createdAt) >= after) &&
          (before === null || day(message.createdAt) <= before),
      )
      .reverse();
    const size = Math.min(Number(query.get("PageSize") ?? "50"), 1000);
    const page = Number(query.get("Page") ?? "0");
    const next = new URLSearchParams(query);
    next.set("Page", String(page + 1));
    const more = matching.length > (page + 1) * size;
    return {
      status: 200,
      body: {
        messages: matching.slice(page * size, (page + 1) * size).map(resource),
        page,
        page_size: size,
        start: page * size,
        end: page * size + Math.min(size, Math.max(0, matching.length - page * size)) - 1,
        uri: `${path}?${query.toString()}`,
        first_page_uri: `${path}?${query.toString()}`,
        next_page_uri: more ? `${path}?${next.toString()}` : null,
        previous_page_uri: null,
      },
    };
  };
  const server = await startProviderServer((request) => {
    const url = new URL(request.url, "http://twilio.invalid");
    if (request.method === "GET" && url.pathname === path) {
      if (request.headers.authorization !== expectedAuth)
        return { status: 401, body: { code: 20003, message: "Authenticate", status: 401 } };
      return list(url.searchParams);
    }
    if (request.method !== "POST" || request.url !== path) {
      return { status: 404, body: { code: 20404, message: "The requested resource was not found", status: 404 } };
    }
    const failure = pending.shift();
    if (failure !== undefined) return failure;
    const authorization = request.headers.authorization;
    if (authorization !== expectedAuth)
      return { status: 401, body: { code: 20003, message: "Authenticate", status: 401 } };
    const form = Object.fromEntries(new URLSearchParams(request.body.toString("utf8")));
    if (form["To"] === undefined) {
      return { status: 400, body: { code: 21604, message: "A 'To' phone number is required.", status: 400 } };
    }
    const message = { sid: `SM${randomBytes(16).toString("hex")}`, form, authorization, createdAt: now() };
    messages.push(message);
    if (answersToLose > 0) {
      answersToLose -= 1;
      return { status: 201, drop: true };
    }
    return { status: 201, body: resource(message) };
  });
  const sign = (url: string, params: Readonly<Record<string, string>>): string =>
    createHmac("sha1", account.authToken)
      .update(
        Object.keys(params)
          .sort()
          .reduce((data, name) => data + name + params[name], url),
        "utf8",
      )
      .digest("base64");
  return {
    server,
    baseUrl: server.baseUrl,
    messages,
    failNext: (...replies) => pending.push(...replies),
    loseNextAnswers: (count) => {
      answersToLose += count;
    },
    lists,
    failLists: (count, status) => {
      for (let index = 0; index < count; index++) listOutages.push(status);
    },
    incoming: ({ from, to, body, channel = "sms" }) => {
      const sid = `SM${randomBytes(16).toString("hex")}`;
      const prefix = channel === "whatsapp" ? "whatsapp:" : "";
      return {
        MessageSid: sid,
        SmsMessageSid: sid,
        SmsSid: sid,
        AccountSid: account.accountSid,
        MessagingServiceSid: "",
        From: `${prefix}${from}`,
        To: `${prefix}${to}`,
        Body: body,
        NumMedia: "0",
        NumSegments: "1",
        SmsStatus: "received",
        ApiVersion: "2010-04-01",
      };
    },
    sign,
    post: (url, params, signature) =>
      fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          ...(signature === null ? {} : { "x-twilio-signature": signature ?? sign(url, params) }),
        },
        body: new URLSearchParams(params as Record<string, string>).toString(),
      }),
    close: () => server.close(),
  };
};
