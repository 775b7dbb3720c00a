/**
 * The bounce receiver (docs/decisions/0658): an SMTP server (smtp-server)
 * for the platform's bounce mailbox, `BOUNCE_ADDRESS`. Every collection
 * e-mail leaves with the envelope sender `local+<bounce token>@domain`, so
 * a delivery status notification (RFC 3464, `multipart/report;
 * report-type=delivery-status`) comes back to an address that names its
 * company and followup. A recipient without a valid token is refused at
 * RCPT TO; a message is parsed with mailparser, and each recipient whose
 * `Action` is `failed` with a 5.x.x `Status` is a hard bounce: its address
 * is marked undeliverable and its followup fails when still `sent`, in one
 * statement. Delays and 4.x.x reports change nothing.
 */
import type { AddressInfo } from "node:net";
import { emailTrackingTokens } from "@dc/crypto";
import { type Db, type EmailBounce, recordEmailBounces } from "@dc/db";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

/** One recipient's report in a delivery status notification. */
export interface RecipientStatus {
  readonly address: string;
  readonly action: string;
  readonly status: string;
  readonly diagnostic: string | undefined;
}

const fieldsOf = (block: string): Map<string, string> => {
  const fields = new Map<string, string>();
  // Continuation lines (RFC 5322 folding) join the field above.
  for (const line of block.replace(/\r?\n[ \t]+/g, " ").split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon > 0) fields.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return fields;
};

/** The per-recipient reports of a `message/delivery-status` body (RFC 3464 2.3). */
export const recipientStatuses = (deliveryStatus: string): ReadonlyArray<RecipientStatus> =>
  deliveryStatus
    .split(/\r?\n\s*\r?\n/)
    .map(fieldsOf)
    .flatMap((fields) => {
      const recipient = fields.get("final-recipient") ?? fields.get("original-recipient");
      const address = recipient?.replace(/^[^;]*;/, "").trim();
      if (address === undefined || address === "") return [];
      return [
        {
          address,
          action: (fields.get("action") ?? "").toLowerCase(),
          status: fields.get("status") ?? "",
          diagnostic: fields.get("diagnostic-code")?.replace(/^[^;]*;/, "").trim(),
        },
      ];
    });

/**
 * The `message/delivery-status` part of a message, as text, or undefined when
 * it is no DSN. mailparser reads the structure (its Content-Type, report type
 * and boundary) but folds that part into the message's text, so the part is
 * taken from the raw message between its boundaries.
 */
export const deliveryStatusOf = (parsed: ParsedMail, raw: string): string | undefined => {
  const type = parsed.headers.get("content-type") as { value?: string; params?: Record<string, string> } | undefined;
  const boundary = type?.params?.["boundary"];
  if (type?.value?.toLowerCase() !== "multipart/report" || type.params?.["report-type"]?.toLowerCase() !== "delivery-status") return undefined;
  if (boundary === undefined || boundary === "") return undefined;
  for (const part of raw.split(`--${boundary}`).slice(1)) {
    const split = /\r?\n\r?\n/.exec(part);
    if (split === null) continue;
    const headers = part.slice(0, split.index).replace(/\r?\n[ \t]+/g, " ");
    if (/^content-type:\s*message\/delivery-status\b/im.test(headers)) return part.slice(split.index + split[0].length);
  }
  return undefined;
};

/** The hard bounces a DSN reports for the e-mail of `email`. */
export const hardBouncesOf = (
  deliveryStatus: string,
  email: { readonly companyId: number; readonly followupId: number },
): ReadonlyArray<EmailBounce> =>
  recipientStatuses(deliveryStatus)
    .filter((report) => report.action === "failed" && report.status.startsWith("5"))
    .map((report) => ({
      companyId: email.companyId,
      followupId: email.followupId,
      address: report.address,
      kind: "bounce" as const,
      source: "dsn" as const,
      detail: [report.status, report.diagnostic].filter((part) => part !== undefined && part !== "").join(" ").slice(0, 1000),
    }));

export interface BounceReceiver {
  readonly port: number;
  readonly close: () => Promise<void>;
}

const refusal = (code: number, message: string): Error => Object.assign(new Error(message), { responseCode: code });

/** Starts the receiver on `host`:`port` (0: a free port) for `bounceAddress` (`local@domain`). */
export const startBounceReceiver = async (options: {
  readonly db: Db;
  readonly secret: Uint8Array;
  readonly bounceAddress: string;
  readonly port: number;
  readonly host?: string;
  readonly now: () => Date;
  readonly onError?: (error: Error) => void;
}): Promise<BounceReceiver> => {
  const tokens = emailTrackingTokens(options.secret);
  const at = options.bounceAddress.lastIndexOf("@");
  const local = options.bounceAddress.slice(0, at).toLowerCase();
  const domain = options.bounceAddress.slice(at + 1).toLowerCase();
  /** The e-mail a recipient of ours names, or undefined. */
  const emailOf = (recipient: string) => {
    const lower = recipient.toLowerCase();
    const prefix = `${local}+`;
    const suffix = `@${domain}`;
    if (!lower.startsWith(prefix) || !lower.endsWith(suffix)) return undefined;
    return tokens.verify("bounce", lower.slice(prefix.length, lower.length - suffix.length));
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["AUTH"],
    logger: false,
    size: 1024 * 1024,
    onRcptTo: (address, _session, callback) => {
      callback(emailOf(address.address) === undefined ? refusal(550, "5.1.1 No such mailbox") : null);
    },
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const emails = session.envelope.rcptTo.flatMap((address) => emailOf(address.address) ?? []);
        const raw = Buffer.concat(chunks);
        simpleParser(raw)
          .then(async (parsed) => {
            const status = deliveryStatusOf(parsed, raw.toString("utf8"));
            const bounces = status === undefined ? [] : emails.flatMap((email) => hardBouncesOf(status, email));
            await recordEmailBounces(options.db, bounces, options.now());
          })
          .then(
            () => callback(null, "Ok: bounce received"),
            (error: Error) => callback(refusal(451, `4.3.0 bounce not recorded: ${error.message}`)),
          );
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host ?? "0.0.0.0", () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.on("error", (error: Error) => options.onError?.(error));
  const { port } = server.server.address() as AddressInfo;
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
};
