/**
 * E-mail over SMTP with nodemailer (docs/decisions/0617): each message goes
 * to its one recipient with a text part (the rendered body) and an HTML
 * part derived from it, escaped (email-html.ts). Its Message-ID is derived
 * from the idempotency key, so a resend of one attempt would carry the same
 * id. The server's acknowledgement of the data is recorded in
 * `provider_acknowledgements` as soon as it arrives: SMTP cannot be asked
 * later what it received, so after a crash `lookup` answers `sent` for an
 * attempt whose acknowledgement was recorded and `failed` (not retryable,
 * never resent: at most once) for any other. Replies 5xx fail for good,
 * 4xx are retryable. A failure without a reply is retryable until the
 * message's body has been handed to the connection (refused connections,
 * timeouts and dropped connections before it, authentication failures);
 * after it the server may have taken the message and only its answer was
 * lost, so it fails for good as `smtp outcome unknown` rather than risk a
 * second e-mail. With tracking settings, every e-mail carries the open pixel,
 * tracked links, an unsubscribe link, `List-Unsubscribe` with
 * `List-Unsubscribe-Post` (RFC 8058), and its bounce token in the envelope
 * sender and a provider metadata header (email-tracking.ts).
 */
import { findAcknowledgement, recordAcknowledgement, type Db } from "@dc/db";
import { PassThrough, pipeline } from "node:stream";
import { createTransport } from "nodemailer";
import type { ChannelAdapter, OutboundMessage, Outcome } from "./channel-adapter.ts";
import { htmlOf, unsubscribeText } from "./email-html.ts";
import { type EmailTrackingSettings, trackedParts } from "./email-tracking.ts";
import { parseMailFrom, type Sender } from "./mail-from.ts";

export interface SmtpSettings {
  /** `smtp://[user:password@]host[:port]` (STARTTLS when offered) or `smtps://...` (TLS from the start). */
  readonly url: string;
  /** `MAIL_FROM`: the From address, with an optional display name (`Collections <collect@example.com>`). */
  readonly from: string;
  /** Connections kept open to the server; messages of a batch are sent over them at once. Default 4. */
  readonly maxConnections?: number;
  /** The wait for each of the server's replies, in milliseconds. Default 60 s. */
  readonly socketTimeoutMs?: number;
  /**
   * Open pixel, tracked links, unsubscribe link and headers, bounce token
   * (docs/decisions/0655-0658). Unset (no `PUBLIC_BASE_URL`): plain e-mails.
   */
  readonly tracking?: EmailTrackingSettings;
}

/** The Postmark metadata header that brings the bounce token back in its webhook (docs/decisions/0658). */
export const BOUNCE_METADATA_HEADER = "X-PM-Metadata-dc-bounce";

/** Error text of an attempt that a crash left without a recorded acknowledgement. */
export const UNACKNOWLEDGED =
  "smtp: the worker stopped before the server's acknowledgement was recorded; not resent (at most once)";

const failed = (retryable: boolean, error: string): Outcome => ({ status: "failed", retryable, error });

/** One address, nothing a header or an envelope could split into several. */
const singleAddress = /^[^\s@,;:<>()[\]"\\]+@[^\s@,;:<>()[\]"\\]+$/;

/** Errors without a reply code that resending cannot fix. */
const permanentCodes = new Set(["EENVELOPE", "EMAXRECIPIENTS", "EFILEACCESS", "EURLACCESS", "ECONFIG"]);

/**
 * The outcome of a send that nodemailer rejected; `bodySent`: the whole
 * body had been handed to the connection, so the final `.` may have reached
 * the server.
 */
export const outcomeOfSmtpError = (error: unknown, bodySent: boolean): Outcome => {
  const { code, responseCode, response, message } = error as {
    code?: unknown;
    responseCode?: unknown;
    response?: unknown;
    message?: unknown;
  };
  const detail = String(typeof response === "string" && response !== "" ? response : (message ?? error));
  const name = typeof code === "string" ? code : "error";
  // A refused login is the server's configuration, not the message's: it may be fixed before the retry.
  if (code === "EAUTH" || code === "ENOAUTH") return failed(true, `smtp authentication failed: ${detail}`);
  // A reply refuses the command it answers, the body's final `.` included: nothing was delivered.
  if (typeof responseCode === "number" && responseCode >= 500) return failed(false, `smtp ${responseCode}: ${detail}`);
  if (typeof responseCode === "number" && responseCode >= 400) return failed(true, `smtp ${responseCode}: ${detail}`);
  // No reply after the body (a timeout, a dropped connection): the server may have accepted the message.
  if (bodySent) return failed(false, `smtp outcome unknown: ${name}: ${detail}; not sent again`);
  if (typeof code === "string" && permanentCodes.has(code)) return failed(false, `smtp ${code}: ${detail}`);
  return failed(true, `smtp ${name}: ${detail}`);
};

/** `<local@domain>` from the idempotency key: the same key always gives the same id, and no two keys share one. */
export const messageIdOf = (idempotencyKey: string, domain: string): string => {
  const local = idempotencyKey.replace(
    /[^A-Za-z0-9_-]/g,
    (character) => `=${character.codePointAt(0)!.toString(16).padStart(2, "0")}`,
  );
  return `<${local}@${domain}>`;
};

/** The SMTP adapter, and `close` for its connection pool. */
export const smtpAdapter = (db: Db, settings: SmtpSettings): ChannelAdapter & { readonly close: () => void } => {
  const sender: Sender = parseMailFrom(settings.from);
  const transport = createTransport({
    url: settings.url,
    pool: true,
    maxConnections: settings.maxConnections ?? 4,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: settings.socketTimeoutMs ?? 60_000,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  /**
   * Per Message-ID of a send in flight, whether its body has been read to
   * the end by the connection. nodemailer reads the message only after the
   * server's 354 to DATA and writes the final `.` after the last byte, so
   * before that point a failure cannot have delivered anything. The watch is
   * the message's last stage, which holds while no DKIM signing follows it.
   */
  const bodySent = new Map<string, boolean>();
  transport.use("stream", (mail, done) => {
    const messageId = mail.data.messageId;
    if (typeof messageId === "string" && bodySent.has(messageId))
      mail.message.processFunc((input) => {
        const output = new PassThrough();
        pipeline(input, output, () => undefined);
        output.once("end", () => bodySent.set(messageId, true));
        return output;
      });
    done();
  });

  const sendOne = async (message: OutboundMessage): Promise<Outcome> => {
    const recipient = message.recipient.trim();
    if (!singleAddress.test(recipient))
      return failed(false, `smtp: not one e-mail address: ${JSON.stringify(recipient)}`);
    const messageId = messageIdOf(message.idempotencyKey, sender.domain);
    const subject = message.subject ?? "";
    const language = message.language ?? "en";
    const tracked =
      settings.tracking === undefined
        ? undefined
        : trackedParts(settings.tracking, { companyId: message.companyId, followupId: message.followupId });
    let response: string;
    bodySent.set(messageId, false);
    try {
      const info = await transport.sendMail({
        from: { name: message.senderName ?? sender.name, address: sender.address },
        to: recipient,
        envelope: { from: tracked?.envelopeFrom ?? sender.address, to: [recipient] },
        subject,
        text:
          tracked === undefined
            ? message.body
            : `${message.body}\n\n${unsubscribeText(language)}: ${tracked.unsubscribeUrl}`,
        html: htmlOf({ subject, body: message.body, language, ...(tracked === undefined ? {} : { tracking: tracked }) }),
        messageId,
        date: message.at,
        ...(tracked === undefined
          ? {}
          : {
              headers: {
                // RFC 2369 and RFC 8058: one-click unsubscribe by POST to the https URL.
                "List-Unsubscribe": `<${tracked.unsubscribeUrl}>`,
                "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
                [BOUNCE_METADATA_HEADER]: tracked.bounceToken,
              },
            }),
      });
      response = info.response;
    } catch (error) {
      return outcomeOfSmtpError(error, bodySent.get(messageId) === true);
    } finally {
      bodySent.delete(messageId);
    }
    // The engine's outcome commit would record the same; this closes the window before it.
    // Failing to record it does not undo the send: the outcome is still `sent`.
    await recordAcknowledgement(db, {
      companyId: message.companyId,
      idempotencyKey: message.idempotencyKey,
      followupId: message.followupId,
      channel: message.channel,
      providerMessageId: messageId,
      response,
    }).catch(() => undefined);
    return { status: "sent", providerMessageId: messageId };
  };

  return {
    send: (messages) => Promise.all(messages.map(sendOne)),
    lookup: async (message) => {
      const acknowledged = await findAcknowledgement(db, message.companyId, message.idempotencyKey);
      return acknowledged === undefined
        ? failed(false, UNACKNOWLEDGED)
        : { status: "sent", providerMessageId: acknowledged.provider_message_id };
    },
    close: () => transport.close(),
  };
};
