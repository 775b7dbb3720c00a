/**
 * A real SMTP server on 127.0.0.1 for tests of the e-mail channel
 * (smtp-server, messages parsed with mailparser): it accepts every message
 * by default and keeps it with its envelope; a test makes it refuse a
 * recipient, at RCPT TO or after the data, with a given reply code, which
 * is how a provider's permanent (5xx) and temporary (4xx) refusals look on
 * the wire. It can also lose the answer to a message it received (the
 * connection ended, or no reply ever), as a server that took the message
 * and then failed looks to the client. Refusals and losses are per
 * address, so concurrent sends stay deterministic.
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
  /** Refuses only the next `times` messages; every later one when unset. */
  readonly times?: number;
}

/** How the answer to a received message is lost: the server ends the connection, or never replies. */
export type LostAnswer = "close" | "silence";

const refusal = (code: number, message: string): Error => Object.assign(new Error(message), { responseCode: code });

export interface TestSmtpServer {
  readonly port: number;
  /** `smtp://127.0.0.1:<port>` */
  readonly url: string;
  /** Messages accepted, in order. */
  readonly received: ReadonlyArray<ReceivedMail>;
  /** Refuses every later message to `address` (lower case) this way. */
  readonly refuse: (address: string, refusal: Refusal) => void;
  /** Keeps the next message to `address` (lower case) as received, then loses its answer this way. */
  readonly loseAnswer: (address: string, how: LostAnswer) => void;
  readonly close: () => Promise<void>;
}

export const startTestSmtpServer = async (): Promise<TestSmtpServer> => {
  const received: ReceivedMail[] = [];
  const refusals = new Map<string, Refusal>();
  const losses = new Map<string, LostAnswer>();
  /** The refusal of the first of `addresses` refused at `at`, counting it against its `times`. */
  const refusalOf = (addresses: ReadonlyArray<string>, at: Refusal["at"]): Refusal | undefined => {
    const address = addresses.map((one) => one.toLowerCase()).find((one) => refusals.get(one)?.at === at);
    if (address === undefined) return undefined;
    const refused = refusals.get(address)!;
    if (refused.times === 1) refusals.delete(address);
    else if (refused.times !== undefined) refusals.set(address, { ...refused, times: refused.times - 1 });
    return refused;
  };
  const lossOf = (addresses: ReadonlyArray<string>): LostAnswer | undefined => {
    const address = addresses.map((one) => one.toLowerCase()).find((one) => losses.has(one));
    if (address === undefined) return undefined;
    const how = losses.get(address);
    losses.delete(address);
    return how;
  };
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
        const lost = lossOf(to);
        const raw = Buffer.concat(chunks).toString("utf8");
        simpleParser(raw).then(
          (parsed) => {
            received.push({ envelope: { from, to }, raw, parsed });
            if (lost === "close") [...server.connections].find((connection) => connection.id === session.id)?.close();
            if (lost === undefined) callback(null, "Ok: queued");
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
    loseAnswer: (address, how) => void losses.set(address.toLowerCase(), how),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
