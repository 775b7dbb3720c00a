/**
 * Requests that Node's HTTP parser refuses before Koa sees them: a head over
 * Node's 16 KiB header limit, a malformed request line or header, framing
 * that contradicts itself (`Content-Length` with `Transfer-Encoding`), or a
 * head or body that did not arrive within the server's timeouts. Node would
 * answer these with a bare status line and no body; they get the api's error
 * envelope instead (docs/decisions/0019), then the connection is closed, as
 * the parser cannot find where the next request would start. A request with
 * an `Expect` value other than `100-continue`, which Node would answer with a
 * bare 417, gets its 417 in the envelope too; that connection stays usable.
 */
import { type IncomingMessage, STATUS_CODES, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { type ParserRefusal, parserRefusals } from "@dc/contract";
import type { Middleware } from "koa";
import type { Logger } from "pino";
import { envelope } from "./api-error.ts";

type Refusal = ParserRefusal;

/** The documented refusal of `status` (packages/contract). */
const refusal = (status: Refusal["status"]): Refusal =>
  parserRefusals.find((candidate) => candidate.status === status)!;

const refusalFor = (parserCode: string | undefined): Refusal => {
  switch (parserCode) {
    case "HPE_HEADER_OVERFLOW":
      return refusal(431);
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return refusal(413);
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return refusal(408);
    default:
      return refusal(400);
  }
};

/**
 * The status of the refusal written in place of the response to each request
 * that was still in progress: its handler may go on (reading a body that
 * will never end) and must log what the client got, not what it would have
 * answered.
 */
const refusedRequests = new WeakMap<IncomingMessage, number>();

/** The status a refusal of the HTTP parser answered `request` with, if one did (see `answerParserRefusals`). */
export const refusalSentFor = (request: IncomingMessage): number | undefined => refusedRequests.get(request);

/** The whole HTTP/1.1 response for a refusal, body included. */
const refusalResponse = (refusal: Refusal): string => {
  const body = JSON.stringify(envelope(refusal.status, refusal.message, { error_code: refusal.errorCode }));
  return [
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? ""}`,
    "Content-Type: application/json; charset=utf-8",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Cache-Control: no-store",
    "X-Content-Type-Options: nosniff",
    "Connection: close",
    "",
    body,
  ].join("\r\n");
};

/**
 * How long a refused connection may stay open for the client to read the
 * refusal and close its side; then it is destroyed (a client that never
 * closes must not hold the connection, nor a graceful stop, forever).
 */
const LINGER_MS = 2_000;

/**
 * Installs the answer on `server`. A connection can still owe responses to
 * requests before the refused one:
 * - when each of them arrived whole and the parser has failed (it reads
 *   nothing more), the refusal waits for the last of their responses:
 *   writing it in the middle of one would corrupt it;
 * - otherwise (a request still waiting for body bytes, or a timeout, where
 *   the parser would go on parsing what arrives) the connection is closed
 *   at once, as Node does, with the refusal first unless a response has
 *   already begun.
 * A connection is refused once: what the client sends after that is
 * ignored, not logged again.
 */
export const answerParserRefusals = (server: Server, logger: Logger): void => {
  const exchanges = new WeakMap<object, Map<IncomingMessage, ServerResponse>>();
  const refusalsWaiting = new WeakMap<object, () => void>();
  const refused = new WeakSet<object>();
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    const { socket } = request;
    const inProgress = exchanges.get(socket) ?? new Map<IncomingMessage, ServerResponse>();
    exchanges.set(socket, inProgress.set(request, response));
    response.once("close", () => {
      inProgress.delete(request);
      const refuse = inProgress.size === 0 ? refusalsWaiting.get(socket) : undefined;
      if (refuse !== undefined) {
        refusalsWaiting.delete(socket);
        refuse();
      }
    });
  });
  // With a listener, Node hands these requests here instead of answering a bare 417 (and emits no `request`).
  server.on("checkExpectation", (_request: IncomingMessage, response: ServerResponse) => {
    const expectation = refusal(417);
    const body = JSON.stringify(envelope(417, expectation.message, { error_code: expectation.errorCode }));
    response.writeHead(417, {
      "Content-Type": "application/json; charset=utf-8",
      "Content-Length": Buffer.byteLength(body),
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    });
    response.end(body);
  });
  server.on("clientError", (error: Error & { code?: string }, socket: Duplex) => {
    if (refused.has(socket)) return;
    refused.add(socket);
    // The client went away: there is nobody to answer.
    if (error.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    const refusal = refusalFor(error.code);
    logger.info({
      msg: "request refused by the HTTP parser",
      status: refusal.status,
      parserError: error.code ?? error.message,
    });
    const answerAndLinger = () => {
      if (!socket.writable) return;
      socket.end(refusalResponse(refusal));
      setTimeout(() => socket.destroy(), LINGER_MS).unref();
    };
    const inProgress = [...(exchanges.get(socket) ?? new Map<IncomingMessage, ServerResponse>())];
    const parserStopped = error.code !== "ERR_HTTP_REQUEST_TIMEOUT";
    if (parserStopped && inProgress.length === 0) {
      answerAndLinger();
    } else if (parserStopped && inProgress.every(([request]) => request.complete)) {
      refusalsWaiting.set(socket, answerAndLinger);
    } else {
      if (inProgress.every(([, response]) => !response.headersSent)) {
        socket.write(refusalResponse(refusal));
        for (const [request] of inProgress) refusedRequests.set(request, refusal.status);
      }
      socket.destroy();
    }
  });
};

/**
 * Refuses a request with more than one Host field line as Node's parser
 * refuses a malformed head: RFC 9112 3.2 requires a 400, and Node keeps the
 * first line and serves it, while a proxy in front may route by the last;
 * the host names the OAuth issuer when PUBLIC_BASE_URL is not set. The
 * connection is closed after the answer, as after any refused head.
 */
export const refuseRepeatedHost: Middleware = async (ctx, next) => {
  if ((ctx.req.headersDistinct["host"]?.length ?? 0) <= 1) return next();
  const malformed = refusal(400);
  ctx.status = malformed.status;
  ctx.set("Connection", "close");
  ctx.body = envelope(malformed.status, malformed.message, { error_code: malformed.errorCode });
};
