/**
 * Rate limits per company (contract part 8), by the class each endpoint
 * declares. One table: the api enforces it and the OpenAPI document shows it
 * (`x-rate-limit`). Windows are fixed, aligned on the hour.
 *
 * - `snapshot_chunk`: 500 per hour per company, shared by every chunk upload.
 * - `snapshot_submit`: 50 per hour per company, shared by every one-request submit.
 * - `read` and `write`: 1,000 per hour per company and operation — the
 *   contract's figure for creditor list/get/update, debts by creditor,
 *   followup list and company profile, applied to every other operation too
 *   (docs/decisions/0011). One contract operation served under two methods
 *   or paths has one budget (`rateLimitBudget`).
 * - `token` and `standard`: not limited per company (the token endpoint
 *   throttles failed client authentication instead; pre-signed media URLs
 *   carry their own expiry).
 */
import type { AnyEndpoint, RateLimitClass } from "./endpoint.ts";

export interface RateLimit {
  readonly requests: number;
  readonly windowSeconds: number;
  /** `class`: one budget shared by every operation of the class; `operation`: a budget per operation. */
  readonly per: "class" | "operation";
}

export const rateLimits: { readonly [Class in RateLimitClass]: RateLimit | null } = {
  snapshot_chunk: { requests: 500, windowSeconds: 3600, per: "class" },
  snapshot_submit: { requests: 50, windowSeconds: 3600, per: "class" },
  read: { requests: 1000, windowSeconds: 3600, per: "operation" },
  write: { requests: 1000, windowSeconds: 3600, per: "operation" },
  token: null,
  standard: null,
};

/**
 * The counter an endpoint's requests are counted on, within its company:
 * its class, for a class-wide budget; otherwise its own budget, which the
 * operations serving one contract operation share (`rateLimitBudget`).
 */
export const rateLimitSubject = (endpoint: AnyEndpoint): string | undefined => {
  const limit = rateLimits[endpoint.rateLimit];
  if (limit === null) return undefined;
  return limit.per === "class" ? endpoint.rateLimit : (endpoint.rateLimitBudget ?? endpoint.operationId);
};
