/**
 * One HTTP attempt of a webhook: POST with a deadline (AbortSignal.timeout),
 * redirects never followed (node:http does not follow them; a 3xx is a
 * failed attempt), and the connection pinned to the addresses the caller
 * resolved (a custom `lookup`): a vetted destination's, so a second DNS
 * answer cannot send it elsewhere (DNS rebinding), and with private
 * destinations allowed too, so node:http never calls `dns.lookup`, which
 * runs on libuv's thread pool (docs/decisions/0454). Never throws: every
 * outcome is a result to record.
 */
import http, { type IncomingHttpHeaders } from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import type { ResolvedAddress } from "@dc/ssrf";

const MAX_RESPONSE_EXCERPT_BYTES = 1024;

export interface SendRequest {
  readonly url: URL;
  /** The addresses to connect to (vetted unless private destinations are allowed): the host name is not resolved again. */
  readonly addresses: ReadonlyArray<ResolvedAddress>;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly timeoutMs: number;
}

export interface SendResult {
  /** The response status; null when no response came. */
  readonly statusCode: number | null;
  readonly headers: IncomingHttpHeaders;
  /** The first 1 KiB of the response body (UTF-8, NUL characters removed). */
  readonly bodyExcerpt: string | null;
  readonly error: string | null;
  readonly durationMs: number;
}

const pinnedLookup =
  (addresses: ReadonlyArray<ResolvedAddress>): LookupFunction =>
  (_hostname, options, callback) => {
    const usable = options.family === 4 || options.family === 6 ? addresses.filter((entry) => entry.family === options.family) : addresses;
    const candidates = usable.length > 0 ? usable : addresses;
    if (options.all === true) {
      (callback as (error: null, addresses: ReadonlyArray<ResolvedAddress>) => void)(null, candidates);
      return;
    }
    const first = candidates[0];
    if (first === undefined) callback(new Error("no vetted address"), "", 4);
    else callback(null, first.address, first.family);
  };

/** UTF-8 text of at most `MAX_RESPONSE_EXCERPT_BYTES` bytes (a cut character is dropped). */
const excerpt = (bytes: Buffer): string => {
  let text = new TextDecoder("utf-8", { fatal: false }).decode(bytes.subarray(0, MAX_RESPONSE_EXCERPT_BYTES)).replace(/\u0000/g, "");
  while (Buffer.byteLength(text) > MAX_RESPONSE_EXCERPT_BYTES) text = text.slice(0, -1);
  if (text.endsWith("\uFFFD") && bytes.byteLength > MAX_RESPONSE_EXCERPT_BYTES) text = text.slice(0, -1);
  return text;
};

const describe = (error: unknown, timedOut: boolean, timeoutMs: number): string => {
  if (timedOut) return `timed out after ${timeoutMs} ms`;
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === "string" ? `request failed: ${code}` : `request failed: ${message}`.slice(0, 500);
};

/** Sends one attempt and reports what happened. */
export const sendWebhook = (request: SendRequest): Promise<SendResult> =>
  new Promise((resolve) => {
    const started = performance.now();
    const signal = AbortSignal.timeout(request.timeoutMs);
    const elapsed = () => Math.max(0, Math.round(performance.now() - started));
    let settled = false;
    const finish = (result: Omit<SendResult, "durationMs">) => {
      if (settled) return;
      settled = true;
      resolve({ ...result, durationMs: elapsed() });
    };
    let partial: ((error: string | null) => void) | undefined;
    const transport = request.url.protocol === "https:" ? https : http;
    const outgoing = transport.request(
      request.url,
      {
        method: "POST",
        headers: { ...request.headers, "content-length": String(Buffer.byteLength(request.body)) },
        signal,
        // A fresh connection per attempt, to the address vetted for this attempt.
        agent: false,
        lookup: pinnedLookup(request.addresses),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let received = 0;
        const done = (error: string | null) => {
          const status = response.statusCode ?? null;
          const redirect = status !== null && status >= 300 && status < 400;
          finish({
            statusCode: status,
            headers: response.headers,
            bodyExcerpt: received === 0 ? null : excerpt(Buffer.concat(chunks)),
            error: error ?? (redirect ? `redirect not followed${response.headers.location === undefined ? "" : ` (to ${response.headers.location.slice(0, 200)})`}` : null),
          });
        };
        partial = done;
        response.on("data", (chunk: Buffer) => {
          if (received < MAX_RESPONSE_EXCERPT_BYTES) chunks.push(chunk);
          received += chunk.byteLength;
          // Enough for the excerpt: the rest of the body is not our business.
          if (received >= MAX_RESPONSE_EXCERPT_BYTES) {
            done(null);
            response.destroy();
          }
        });
        response.on("end", () => done(null));
        response.on("error", () => done(signal.aborted ? `response timed out after ${request.timeoutMs} ms` : null));
        response.on("close", () => done(null));
      },
    );
    outgoing.on("error", (error) => {
      // After the status line, a failure keeps the status: the receiver did answer.
      if (partial !== undefined) return partial(describe(error, signal.aborted, request.timeoutMs));
      finish({ statusCode: null, headers: {}, bodyExcerpt: null, error: describe(error, signal.aborted, request.timeoutMs) });
    });
    outgoing.end(request.body);
  });
