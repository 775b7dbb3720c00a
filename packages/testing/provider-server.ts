/**
 * A fake provider's HTTP server on a real socket (127.0.0.1, a free port):
 * the test support of the channel adapters (docs/decisions/0630). Each fake
 * provider (twilio, retell, lob) is its own module speaking its provider's
 * documented API through this: it sees every request as the provider would
 * (method, path, headers, body bytes) and answers it, or closes the
 * connection unanswered (a lost answer). The server keeps the
 * requests it received, in order, for the test to assert on.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ProviderRequestSeen {
  readonly method: string;
  /** Path and query, as sent. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

export interface ProviderReply {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** An object is sent as JSON. */
  readonly body?: unknown;
  /** Close the connection without answering: the answer lost after the provider acted on the request. */
  readonly drop?: boolean;
}

export interface ProviderServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly baseUrl: string;
  readonly requests: ReadonlyArray<ProviderRequestSeen>;
  readonly close: () => Promise<void>;
}

export const startProviderServer = async (
  handle: (request: ProviderRequestSeen) => ProviderReply | Promise<ProviderReply>,
): Promise<ProviderServer> => {
  const requests: ProviderRequestSeen[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const seen = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks) };
      requests.push(seen);
      void Promise.resolve()
        .then(() => handle(seen))
        .then(
          (reply) => {
            if (reply.drop === true) {
              req.socket.destroy();
              return;
            }
            const json = reply.body !== undefined && typeof reply.body !== "string";
            res.writeHead(reply.status, { ...(json ? { "content-type": "application/json" } : {}), ...reply.headers });
            res.end(reply.body === undefined ? undefined : json ? JSON.stringify(reply.body) : String(reply.body));
          },
          (error: unknown) => {
            res.writeHead(500, { "content-type": "text/plain" });
            res.end(error instanceof Error ? error.message : String(error));
          },
        );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
};
