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

/** A POST to one of `KEYED_CREATION_PATHS`: an operation that honours the key. */
const isKeyedCreation = (request: Request): boolean =>
  request.method.toUpperCase() === "POST" &&
  KEYED_CREATION_PATHS.has(new URL(request.url).pathname.replace(/\/+$/, ""));

/** `request`, with a new random key when it is a keyed creation sent without one; otherwise `request` itself. */
export const withIdempotencyKey = (request: Request): Request => {
  if (request.headers.has(IDEMPOTENCY_KEY_HEADER) || !isKeyedCreation(request)) return request;
  const keyed = new Request(request);
  keyed.headers.set(IDEMPOTENCY_KEY_HEADER, globalThis.crypto.randomUUID());
  return keyed;
};

/**
 * A request the api treats as sent once however often it arrives because of
 * its key: a keyed creation carrying one. A key the caller set on another
 * request is sent, but the api ignores it there, so it makes nothing safe to
 * send again.
 */
export const carriesIdempotencyKey = (request: Request): boolean =>
  request.headers.has(IDEMPOTENCY_KEY_HEADER) && isKeyedCreation(request);
