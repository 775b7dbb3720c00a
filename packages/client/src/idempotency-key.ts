/**
 * `Idempotency-Key` on the api's creating operations (docs/decisions/0024):
 * the transport gives each call of `POST /debts`, `/debts/batch`,
 * `/followups` and `/creditors` a key of its own, unless the caller sent one,
 * and keeps it across that call's retries. A POST that carries a key is then
 * safe to send again: the api answers a repeat with the first answer and
 * writes nothing (docs/decisions/0401).
 */

export const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";

/** The paths whose POST takes an `Idempotency-Key` (the OpenAPI document declares the header on exactly these). */
export const KEYED_CREATION_PATHS: ReadonlySet<string> = new Set([
  "/external-api/v1/debts",
  "/external-api/v1/debts/batch",
  "/external-api/v1/followups",
  "/external-api/v1/creditors",
]);

/** `request`, with a new random key when it is a keyed creation sent without one; otherwise `request` itself. */
export const withIdempotencyKey = (request: Request): Request => {
  if (request.method.toUpperCase() !== "POST" || request.headers.has(IDEMPOTENCY_KEY_HEADER)) return request;
  if (!KEYED_CREATION_PATHS.has(new URL(request.url).pathname.replace(/\/+$/, ""))) return request;
  const keyed = new Request(request);
  keyed.headers.set(IDEMPOTENCY_KEY_HEADER, globalThis.crypto.randomUUID());
  return keyed;
};

/** A request the api treats as sent once however often it arrives: an idempotent method, or a POST with a key. */
export const carriesIdempotencyKey = (request: Request): boolean => request.headers.has(IDEMPOTENCY_KEY_HEADER);
