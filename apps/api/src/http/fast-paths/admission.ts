/**
 * Fast path: replaces one admission statement per request with one statement
 * shared by the concurrent requests of a token, scope and counter, kept for
 * page-1 throughput (docs/benchmarks.md, "Second implementations: A/B").
 * Held equal to admitting the same requests one statement each by
 * apps/api/test/admission-coalesced.test.ts (fast-check).
 *
 * Admission of an authenticated request: the bearer token is resolved to its
 * principal, the operation's scope is checked and the company's rate-limit
 * counter is advanced, all in one statement (docs/decisions/0012).
 *
 * Requests that arrive while a statement for the same token, scope and
 * counter is running wait for the next statement, which admits all of them
 * and advances the counter by their number. Under load one round trip admits
 * many requests; and every request is admitted by a statement that began
 * after it arrived, so a token revoked a moment ago is refused at once and
 * the counter stays exact: each request gets its own position in the window.
 */
import type { RateLimit, Scope } from "@dc/contract";
import { type AdmissionRow, admitToken, type Db } from "@dc/db";
import { bearerToken, type Principal } from "../../auth/bearer.ts";
import type { Clock } from "@dc/runtime";
import { hashSecret } from "../../oauth/secrets.ts";
import { MissingScope, RateLimited, Unauthorized } from "../api-error.ts";
import { fixedWindow, type RateLimitState } from "../rate-limit.ts";

export interface AdmissionRule {
  readonly scope: Scope;
  /** The counter of the operation (its class or its own name) and its limit; absent when not limited. */
  readonly rateLimit?: { readonly subject: string; readonly limit: RateLimit } | undefined;
}

export interface Admitted {
  readonly principal: Principal;
  readonly rateLimit: RateLimitState | undefined;
}

/** Admits a request given its Authorization header; rejects with Unauthorized, MissingScope or RateLimited. */
export type Admit = (authorization: string | undefined, rule: AdmissionRule) => Promise<Admitted>;

interface Waiter {
  readonly resolve: (admitted: Admitted) => void;
  readonly reject: (error: unknown) => void;
}

interface Batch {
  readonly tokenHash: Buffer;
  readonly rule: AdmissionRule;
  waiting: Waiter[];
  running: boolean;
}

const MAX_TOKEN_LENGTH = 512;

type Window = ReturnType<typeof fixedWindow>;

/** The outcome of the `index`-th of `admitted` requests admitted by one statement. */
const outcome = (row: AdmissionRow | undefined, rule: AdmissionRule, window: Window | undefined, index: number, admitted: number): Admitted => {
  if (row === undefined) throw new Unauthorized({ invalidToken: true });
  const scopes = new Set(row.scopes as Scope[]);
  if (!scopes.has(rule.scope)) throw new MissingScope({ scope: rule.scope });
  const principal: Principal = {
    companyId: Number(row.company_id),
    clientPk: Number(row.client_pk),
    grantId: Number(row.grant_id),
    scopes,
  };
  if (rule.rateLimit === undefined || window === undefined || row.counter_key === null || row.count === null) {
    return { principal, rateLimit: undefined };
  }
  const { limit } = rule.rateLimit;
  const resetSeconds = window.secondsLeft;
  // The statement advanced the counter by `admitted`; this request holds one position of that run.
  const position = row.count - admitted + 1 + index;
  if (position > limit.requests) throw new RateLimited({ limit: limit.requests, retryAfterSeconds: resetSeconds, resetSeconds });
  return {
    principal,
    rateLimit: { key: row.counter_key, windowStart: window.start, limit: limit.requests, remaining: limit.requests - position, resetSeconds },
  };
};

export const createAdmission = (db: Db, clock: Clock): Admit => {
  const batches = new Map<string, Batch>();

  const run = (key: string, batch: Batch): void => {
    const waiting = batch.waiting;
    batch.waiting = [];
    batch.running = true;
    const now = clock.now();
    const window = batch.rule.rateLimit === undefined ? undefined : fixedWindow(now, batch.rule.rateLimit.limit.windowSeconds);
    // Started from a resolved promise, so even a synchronous failure settles every waiter and frees the key.
    Promise.resolve()
      .then(() =>
        admitToken(db, {
          tokenHash: batch.tokenHash,
          scope: batch.rule.scope,
          now,
          ...(batch.rule.rateLimit === undefined || window === undefined
            ? {}
            : {
                counter: {
                  subject: batch.rule.rateLimit.subject,
                  windowStart: window.start,
                  windowEnd: window.end,
                  admitted: waiting.length,
                },
              }),
        }),
      )
      .then(
        (row) => {
          waiting.forEach((waiter, index) => {
            try {
              waiter.resolve(outcome(row, batch.rule, window, index, waiting.length));
            } catch (error) {
              waiter.reject(error);
            }
          });
        },
        (error: unknown) => {
          for (const waiter of waiting) waiter.reject(error);
        },
      )
      .finally(() => {
        batch.running = false;
        if (batch.waiting.length > 0) run(key, batch);
        else batches.delete(key);
      });
  };

  return (authorization, rule) => {
    const token = bearerToken(authorization);
    if (token === undefined) return Promise.reject(new Unauthorized({ invalidToken: false }));
    if (token.length > MAX_TOKEN_LENGTH) return Promise.reject(new Unauthorized({ invalidToken: true }));
    const tokenHash = hashSecret(token);
    const key = `${tokenHash.toString("base64")} ${rule.scope} ${rule.rateLimit?.subject ?? ""}`;
    let batch = batches.get(key);
    if (batch === undefined) {
      batch = { tokenHash, rule, waiting: [], running: false };
      batches.set(key, batch);
    }
    const admitted = new Promise<Admitted>((resolve, reject) => batch.waiting.push({ resolve, reject }));
    if (!batch.running) run(key, batch);
    return admitted;
  };
};
