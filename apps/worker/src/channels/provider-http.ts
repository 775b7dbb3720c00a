/**
 * The one HTTP client of the channel providers (docs/decisions/0630): per
 * provider account a send rate and a concurrency limit, retries with
 * exponential backoff that honours `Retry-After`, a bounded number of
 * attempts, then a failure with the reason. A 4xx other than 429 is
 * permanent: no retry, the provider's answer kept.
 *
 * What is retried depends on whether a repeat can be a second send. A read
 * (`GET`) and a create carrying an idempotency key the provider honours
 * (Lob's `Idempotency-Key`) are retried on a 429, a 5xx and a network
 * error. A create the provider cannot deduplicate (Twilio's message,
 * Retell's call) is retried only when the provider certainly did not act:
 * a 429 or a 503 (it refused the request) or a connection never made. A
 * timeout, a connection dropped before the answer, or another 5xx may come
 * after the provider sent the message: the request ends at once as
 * `unknown`, and the adapter fails it for good instead of sending again.
 * Whichever way a request fails, `mayHaveActed` says whether any of its
 * tries was such a one, for the adapter to ask the provider what it made
 * (Lob's letter, by its key) before the engine's next attempt sends anew.
 */

export interface ProviderHttpSettings {
  /** Requests per second per provider account. */
  readonly sendRatePerSecond: number;
  /** Requests in flight at once per provider account. */
  readonly concurrency: number;
  /** Attempts of one request, the first included. */
  readonly maxAttempts: number;
  /** The first retry's delay; each next one doubles, up to `maxDelayMs`. */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** One attempt's time limit. */
  readonly timeoutMs: number;
}

export const DEFAULT_PROVIDER_HTTP: ProviderHttpSettings = {
  sendRatePerSecond: 10,
  concurrency: 4,
  maxAttempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  timeoutMs: 15_000,
};

export interface ProviderRequest {
  /** The provider account the limits apply to (e.g. `twilio:AC...`). */
  readonly account: string;
  readonly method: "GET" | "POST" | "DELETE";
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Text (a form, JSON) or bytes (a multipart upload such as a letter's PDF). */
  readonly body?: string | Uint8Array;
  /** The idempotency header the provider honours and our key: sent on every attempt; a create without one is retried only when nothing was sent. */
  readonly idempotency?: { readonly header: string; readonly key: string };
}

export type ProviderResponse =
  | { readonly ok: true; readonly status: number; readonly body: unknown }
  /**
   * `permanent`: a 4xx the provider will answer again. `unknown`: a create
   * the provider cannot deduplicate whose answer was lost or ambiguous, so
   * it may have been sent; not retried. Neither: the attempts ran out (the
   * last status, if any). `mayHaveActed`: some try's answer was lost or
   * ambiguous (a timeout, a dropped connection, a 5xx other than 503), so
   * the provider may have acted on the request whatever the last try said.
   */
  | {
      readonly ok: false;
      readonly permanent: boolean;
      readonly unknown: boolean;
      readonly mayHaveActed: boolean;
      readonly status: number | null;
      readonly body: unknown;
      readonly reason: string;
    };

export interface ProviderHttp {
  readonly request: (request: ProviderRequest) => Promise<ProviderResponse>;
}

/** Waits `ms`; injected so tests observe the backoff instead of sleeping through it. */
export type Sleep = (ms: number) => Promise<void>;

const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export const retryAfterMs = (value: string | null, now: number): number | undefined => {
  if (value === null || value.trim() === "") return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
};

/** One account's limits: a concurrency gate and a minimum spacing between request starts. */
class AccountGate {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  private nextStart = 0;

  private readonly settings: ProviderHttpSettings;
  private readonly sleep: Sleep;

  constructor(settings: ProviderHttpSettings, sleep: Sleep) {
    this.settings = settings;
    this.sleep = sleep;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.settings.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active += 1;
    try {
      const spacing = 1000 / this.settings.sendRatePerSecond;
      const now = Date.now();
      const start = Math.max(now, this.nextStart);
      this.nextStart = start + spacing;
      if (start > now) await this.sleep(start - now);
      return await work();
    } finally {
      this.active -= 1;
      this.waiting.shift()?.();
    }
  }
}

/** Connection errors raised before any byte of the request reached the provider. */
const notConnected = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_CONNECT_TIMEOUT"]);

const errorCode = (error: unknown): string | undefined => {
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  return typeof cause?.code === "string" ? cause.code : undefined;
};

const readBody = async (response: Response): Promise<unknown> => {
  const text = await response.text();
  if (text === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

export const createProviderHttp = (settings: ProviderHttpSettings, sleep: Sleep = realSleep): ProviderHttp => {
  const gates = new Map<string, AccountGate>();
  const gateOf = (account: string): AccountGate => {
    let gate = gates.get(account);
    if (gate === undefined) {
      gate = new AccountGate(settings, sleep);
      gates.set(account, gate);
    }
    return gate;
  };
  const backoff = (attempt: number): number => Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** (attempt - 1));

  const request = async (request: ProviderRequest): Promise<ProviderResponse> => {
    const headers: Record<string, string> = { ...request.headers };
    if (request.idempotency !== undefined) headers[request.idempotency.header] = request.idempotency.key;
    const repeatable = request.method === "GET" || request.idempotency !== undefined;
    let mayHaveActed = false;
    let last: ProviderResponse = {
      ok: false,
      permanent: false,
      unknown: false,
      mayHaveActed,
      status: null,
      body: null,
      reason: "no attempt made",
    };
    for (let attempt = 1; attempt <= settings.maxAttempts; attempt++) {
      let wait = backoff(attempt);
      try {
        const response = await gateOf(request.account).run(() =>
          fetch(request.url, {
            method: request.method,
            headers,
            ...(request.body === undefined ? {} : { body: request.body }),
            signal: AbortSignal.timeout(settings.timeoutMs),
          }),
        );
        const body = await readBody(response);
        if (response.ok) return { ok: true, status: response.status, body };
        const refused = response.status === 429 || response.status === 503;
        const acted = !refused && response.status >= 500;
        mayHaveActed ||= acted;
        const unknown = !repeatable && acted;
        const retryable = !unknown && (refused || response.status >= 500);
        last = {
          ok: false,
          permanent: !retryable && !unknown,
          unknown,
          mayHaveActed,
          status: response.status,
          body,
          reason: `HTTP ${response.status}${retryable && attempt === settings.maxAttempts ? ` after ${attempt} attempts` : ""}`,
        };
        if (!retryable) return last;
        const after = retryAfterMs(response.headers.get("retry-after"), Date.now());
        if (after !== undefined) wait = Math.min(Math.max(after, wait), settings.maxDelayMs);
      } catch (error) {
        const code = errorCode(error);
        const cause = `${error instanceof Error ? error.message : String(error)}${code === undefined ? "" : ` (${code})`}`;
        const acted = code === undefined || !notConnected.has(code);
        mayHaveActed ||= acted;
        const unknown = !repeatable && acted;
        last = {
          ok: false,
          permanent: false,
          unknown,
          mayHaveActed,
          status: null,
          body: null,
          reason: `network error: ${cause}${!unknown && attempt === settings.maxAttempts ? ` after ${attempt} attempts` : ""}`,
        };
        if (unknown) return last;
      }
      if (attempt < settings.maxAttempts) await sleep(wait);
    }
    return last;
  };
  return { request };
};
