/**
 * A steady load for fault tests: one loop per operation sends a request,
 * records how it ended (status and body, or the transport failure), pauses,
 * and goes again until stopped. Every outcome keeps its start and end time so
 * a test can tell what happened before, during and after a fault.
 */
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";

export interface LoadRequest {
  readonly path: string;
  /** A JSON body, sent with POST. */
  readonly json?: unknown;
  /** The `internal_id` a create request sends, to find it in the database afterwards. */
  readonly internalId?: string;
}

export interface LoadOperation {
  readonly name: string;
  /** Builds the `sequence`-th request of this operation's loop. */
  readonly request: (sequence: number) => LoadRequest;
}

export interface Outcome {
  readonly operation: string;
  /** `performance.now()` milliseconds. */
  readonly startedAt: number;
  readonly endedAt: number;
  readonly internalId: string | undefined;
  /** Undefined when no response arrived. */
  readonly status: number | undefined;
  readonly body: unknown;
  readonly retryAfter: string | null;
  /** Why no response arrived: `TimeoutError`, or the socket error code (`ECONNRESET`, `ECONNREFUSED`, `UND_ERR_SOCKET`...). */
  readonly failure: string | undefined;
}

export interface Load {
  readonly outcomes: ReadonlyArray<Outcome>;
  /** Resolves once `done(outcomes)` holds (true) or `withinMs` has passed (false). */
  readonly until: (done: (outcomes: ReadonlyArray<Outcome>) => boolean, withinMs: number) => Promise<boolean>;
  /** Stops every loop after its current request. */
  readonly stop: () => Promise<void>;
}

export interface LoadOptions {
  readonly bearerToken: string;
  /** A request without a response after this long is recorded as a `TimeoutError` failure. */
  readonly timeoutMs: number;
  /** Pause between two requests of one loop (keeps the run inside the rate limits). */
  readonly pauseMs: number;
}

const failureOf = (error: unknown): string => {
  if (error instanceof Error && error.name === "TimeoutError") return "TimeoutError";
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  return typeof cause?.code === "string" ? cause.code : String(error);
};

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
};

/** Starts one loop per operation against `baseUrl`. */
export const startLoad = (baseUrl: string, operations: ReadonlyArray<LoadOperation>, options: LoadOptions): Load => {
  const outcomes: Outcome[] = [];
  let running = true;

  const once = async (operation: LoadOperation, sequence: number): Promise<void> => {
    const { path, json, internalId } = operation.request(sequence);
    const startedAt = performance.now();
    const record = (fields: Pick<Outcome, "status" | "body" | "retryAfter" | "failure">) =>
      outcomes.push({ operation: operation.name, startedAt, endedAt: performance.now(), internalId, ...fields });
    try {
      const response = await fetch(`${baseUrl}${path}`, {
        method: json === undefined ? "GET" : "POST",
        headers: {
          authorization: `Bearer ${options.bearerToken}`,
          ...(json === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(json === undefined ? {} : { body: JSON.stringify(json) }),
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      const body = parse(await response.text());
      record({ status: response.status, body, retryAfter: response.headers.get("retry-after"), failure: undefined });
    } catch (error) {
      record({ status: undefined, body: undefined, retryAfter: null, failure: failureOf(error) });
    }
  };

  const loops = operations.map(async (operation) => {
    for (let sequence = 0; running; sequence++) {
      await once(operation, sequence);
      await sleep(options.pauseMs);
    }
  });

  return {
    outcomes,
    until: async (done, withinMs) => {
      const deadline = performance.now() + withinMs;
      for (;;) {
        if (done(outcomes)) return true;
        if (performance.now() > deadline) return false;
        await sleep(20);
      }
    },
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
};
