/**
 * A real SMTP server on 127.0.0.1 for tests of the e-mail channel
 * (smtp-server, messages parsed with mailparser): it accepts every message
 * by default and keeps it with its envelope; a test makes it refuse a
 * recipient, at RCPT TO or after the data, with a given reply code, which
 * is how a provider's permanent (5xx) and temporary (4xx) refusals look on
 * the wire. Refusals are per address, so concurrent sends stay
 * deterministic.
 */
import type { AddressInfo } from "node:net";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  readonly envelope: { readonly from: string; readonly to: ReadonlyArray<string> };
  readonly raw: string;
  readonly parsed: ParsedMail;
}

/** A refusal of an address's messages: at its recipient or after its data, with an SMTP reply code. */
export interface Refusal {
  readonly at: "rcpt" | "data";
  readonly code: number;
  readonly message: string;
}

const refusal = (code: number, message: string): Error => Object.assign(new Error(message), { responseCode: code });

export interface TestSmtpServer {
  readonly port: number;
  /** `smtp://127.0.0.1:<port>` */
  readonly url: string;
  /** Messages accepted, in order. */
  readonly received: ReadonlyArray<ReceivedMail>;
  /** Refuses every later message to `address` (lower case) this way. */
  readonly refuse: (address: string, refusal: Refusal) => void;
  readonly close: () => Promise<void>;
}

export const startTestSmtpServer = async (): Promise<TestSmtpServer> => {
  const received: ReceivedMail[] = [];
  const refusals = new Map<string, Refusal>();
  const refusalOf = (addresses: ReadonlyArray<string>, at: Refusal["at"]): Refusal | undefined =>
    addresses.map((address) => refusals.get(address.toLowerCase())).find((found) => found?.at === at);
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onRcptTo: (address, _session, callback) => {
      const refused = refusalOf([address.address], "rcpt");
      callback(refused === undefined ? null : refusal(refused.code, refused.message));
    },
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const from = session.envelope.mailFrom === false ? "" : session.envelope.mailFrom.address;
        const to = session.envelope.rcptTo.map((address) => address.address);
        const refused = refusalOf(to, "data");
        if (refused !== undefined) {
          callback(refusal(refused.code, refused.message));
          return;
        }
        const raw = Buffer.concat(chunks).toString("utf8");
        simpleParser(raw).then(
          (parsed) => {
            received.push({ envelope: { from, to }, raw, parsed });
            callback(null, "Ok: queued");
          },
          (error: Error) => callback(error),
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    received,
    refuse: (address, refused) => void refusals.set(address.toLowerCase(), refused),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
