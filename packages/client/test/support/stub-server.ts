/**
 * A local HTTP server (node:http) that plays the api's part where the real
 * one cannot be made to misbehave on demand: answers are scripted per
 * request, and every request is recorded.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { afterAll } from "vitest";
import { type ClientOptions, createClient } from "../../src/index.ts";

export interface Scripted {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  /** Drop the connection without answering (a network error for the client). */
  readonly hangUp?: boolean;
  /** Never answer: the request stays open until the client gives up on it (or `reset`). */
  readonly stall?: boolean;
}

export interface StubRequest {
  readonly method: string;
  readonly path: string;
  readonly authorization: string | undefined;
  readonly idempotencyKey: string | undefined;
}

const envelope = (status: number, message: string, extra: Record<string, unknown> = {}) => ({ error: true, message, code: status, ...extra });

export const answers = {
  ok: (data: unknown): Scripted => ({ status: 200, body: { error: false, message: "ok", data } }),
  unavailable: (retryAfter?: string): Scripted => ({
    status: 503,
    body: envelope(503, "Service temporarily unavailable"),
    ...(retryAfter === undefined ? {} : { headers: { "retry-after": retryAfter } }),
  }),
  rateLimited: (retryAfter: string): Scripted => ({
    status: 429,
    body: envelope(429, "Rate limit exceeded", { error_code: "rate_limited" }),
    headers: { "retry-after": retryAfter },
  }),
  hangUp: (): Scripted => ({ status: 0, hangUp: true }),
  stall: (): Scripted => ({ status: 0, stall: true }),
  token: (value = "dcat_stub"): Scripted => ({
    status: 200,
    body: { access_token: value, token_type: "Bearer", expires_in: 3600, scope: "debts:read" },
  }),
};

/** Starts the stub; `script(method, path, ...answers)` queues answers, the last one repeating. */
export const startStub = async () => {
  const scripts = new Map<string, Scripted[]>();
  const requests: StubRequest[] = [];
  const stalled = new Set<ServerResponse>();
  let arrival: { readonly key: string; readonly arrived: () => void } | undefined;
  let tokens = 0;

  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const method = request.method ?? "GET";
    const path = new URL(request.url ?? "/", "http://stub").pathname;
    const idempotencyKey = request.headers["idempotency-key"];
    requests.push({
      method,
      path,
      authorization: request.headers.authorization,
      idempotencyKey: Array.isArray(idempotencyKey) ? idempotencyKey.join(", ") : idempotencyKey,
    });
    if (arrival?.key === `${method} ${path}`) arrival.arrived();
    request.resume();
    request.on("end", () => {
      const queue = scripts.get(`${method} ${path}`);
      const answer = queue === undefined ? (path === "/oauth/token" ? answers.token(`dcat_stub_${++tokens}`) : { status: 404, body: envelope(404, "Route not found") }) : queue.length > 1 ? queue.shift()! : queue[0]!;
      if (answer.hangUp === true) {
        request.socket.destroy();
        return;
      }
      if (answer.stall === true) {
        stalled.add(response);
        response.on("close", () => stalled.delete(response));
        return;
      }
      response.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
      response.end(answer.body === undefined ? "" : JSON.stringify(answer.body));
    });
  };

  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  const releaseStalled = () => {
    for (const response of stalled) response.destroy();
    stalled.clear();
  };
  afterAll(() => {
    releaseStalled();
    // Idle keep-alive connections too: a client whose timers were faked by a test may never close its own.
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    script: (method: string, path: string, ...queued: Scripted[]) => scripts.set(`${method} ${path}`, [...queued]),
    reset: () => {
      releaseStalled();
      scripts.clear();
      requests.length = 0;
    },
    /** Resolves when the next `method` request to `path` arrives. */
    arrival: (method: string, path: string) =>
      new Promise<void>((resolve) => {
        arrival = {
          key: `${method} ${path}`,
          arrived: () => {
            arrival = undefined;
            resolve();
          },
        };
      }),
    count: (method: string, path: string) => requests.filter((r) => r.method === method && r.path === path).length,
  };
};

/**
 * A client of the stub at `baseUrl` whose waits between retries are recorded
 * in `waits`, never slept, with the backoff jitter fixed at one half.
 */
export const stubClient = (baseUrl: string, options: Partial<ClientOptions> = {}) => {
  const waits: number[] = [];
  const api = createClient({
    baseUrl,
    clientId: "dcc_stub",
    clientSecret: "dcs_stub",
    sleep: async (ms) => {
      waits.push(ms);
    },
    random: () => 0.5,
    ...options,
  });
  return { api, waits };
};
