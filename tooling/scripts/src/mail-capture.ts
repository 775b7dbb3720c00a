/**
 * The development mail capture server that `pnpm start` runs in its own
 * process (smtp-server, messages parsed with mailparser): live companies'
 * e-mails really go out over SMTP and land here instead of in a mailbox.
 * Each accepted message is kept under the capture directory (default
 * `.data/mail`) as `<id>.eml` (the message as received) and `<id>.json`
 * (envelope, headers, text and HTML parts), and one summary line is
 * appended to `index.jsonl`; `pnpm cli mail list` and `mail show` read them
 * (apps/api/src/cli/mail.ts). It listens on loopback only and accepts any
 * sender, recipient and login.
 */
import { randomBytes } from "node:crypto";
import { appendFile, mkdir, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { type AddressObject, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

/** One line of `index.jsonl`. */
export interface CapturedSummary {
  readonly id: string;
  readonly received_at: string;
  readonly envelope: { readonly from: string; readonly to: ReadonlyArray<string> };
  readonly from: string;
  readonly to: string;
  readonly subject: string;
  readonly message_id: string | null;
}

/** `<id>.json`: the summary with the message's date and parts. */
export interface CapturedMessage extends CapturedSummary {
  readonly date: string | null;
  readonly text: string | null;
  readonly html: string | null;
}

export interface MailCapture {
  readonly port: number;
  /** `smtp://127.0.0.1:<port>`, for `SMTP_URL`. */
  readonly url: string;
  readonly directory: string;
  readonly close: () => Promise<void>;
}

const addressText = (value: AddressObject | ReadonlyArray<AddressObject> | undefined): string =>
  value === undefined ? "" : (Array.isArray(value) ? value : [value]).map((address) => address.text).join(", ");

/** Time-ordered ids: the receipt time, then random bits for messages of the same millisecond. */
const newId = (at: Date): string => `${at.toISOString().replace(/[-:.]/g, "")}-${randomBytes(3).toString("hex")}`;

/**
 * Starts the capture server on 127.0.0.1:`port` (0: a free port), writing
 * into `directory` (created if missing). Messages are written before the
 * server acknowledges them, so an acknowledged message is always listed.
 */
export const startMailCapture = async (options: {
  readonly directory: string;
  readonly port: number;
  /** A connection's failure (a client that hung up): the server goes on. */
  readonly onError?: (error: Error) => void;
}): Promise<MailCapture> => {
  const { directory } = options;
  await mkdir(directory, { recursive: true });
  // One write at a time keeps index.jsonl's lines whole and in receipt order.
  let writes: Promise<unknown> = Promise.resolve();
  const keep = async (raw: Buffer, envelope: CapturedSummary["envelope"]): Promise<void> => {
    const parsed = await simpleParser(raw);
    const receivedAt = new Date();
    const summary: CapturedSummary = {
      id: newId(receivedAt),
      received_at: receivedAt.toISOString(),
      envelope,
      from: addressText(parsed.from),
      to: addressText(parsed.to),
      subject: parsed.subject ?? "",
      message_id: parsed.messageId ?? null,
    };
    const message: CapturedMessage = {
      ...summary,
      date: parsed.date?.toISOString() ?? null,
      text: parsed.text ?? null,
      html: typeof parsed.html === "string" ? parsed.html : null,
    };
    const write = writes.then(async () => {
      await writeFile(join(directory, `${summary.id}.eml`), raw);
      await writeFile(join(directory, `${summary.id}.json`), `${JSON.stringify(message, null, 2)}\n`);
      await appendFile(join(directory, "index.jsonl"), `${JSON.stringify(summary)}\n`);
    });
    writes = write.catch(() => undefined);
    await write;
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onAuth: (_auth, _session, callback) => callback(null, { user: "capture" }),
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const envelope = {
          from: session.envelope.mailFrom === false ? "" : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((address) => address.address),
        };
        keep(Buffer.concat(chunks), envelope).then(
          () => callback(null, "Ok: captured"),
          (error: Error) =>
            callback(Object.assign(new Error(`capture failed: ${error.message}`), { responseCode: 451 })),
        );
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  // Without a listener, one client's broken connection would end the process.
  server.on("error", (error: Error) => options.onError?.(error));
  const { port } = server.server.address() as AddressInfo;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    directory,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
