/**
 * The outermost middleware: gives every request an id (echoed in
 * `X-Request-Id`), renders every failure through the one error table, and
 * writes one structured log line per request.
 */
import { randomUUID } from "node:crypto";
import type { Middleware } from "koa";
import type { Logger } from "pino";
import {
  asOAuthFailure,
  classifyUnexpected,
  internalErrorResponse,
  isApiError,
  renderApiError,
  type RenderedError,
} from "./api-error.ts";
import { refusalSentFor } from "./parser-refusals.ts";

const REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** Told about every finished request (metrics). `route` is the matched route template, or `unmatched`. */
export type RequestObserver = (labels: { method: string; route: string; status: number }, seconds: number) => void;

/**
 * `answersInOAuthShape`: the paths whose every error is OAuth's
 * `{error, error_description}` (RFC 6749 5.2) rather than the api envelope.
 */
export const requestContext = (
  logger: Logger,
  observe: RequestObserver = () => {},
  answersInOAuthShape: (path: string) => boolean = () => false,
): Middleware => async (ctx, next) => {
  const started = process.hrtime.bigint();
  const incoming = ctx.get("x-request-id");
  const requestId = REQUEST_ID.test(incoming) ? incoming : randomUUID();
  ctx.state["requestId"] = requestId;
  ctx.set("X-Request-Id", requestId);
  let failure: unknown;
  try {
    await next();
  } catch (error) {
    const known = isApiError(error) ? error : classifyUnexpected(error);
    const rendered: RenderedError = answersInOAuthShape(ctx.path)
      ? renderApiError(asOAuthFailure(known))
      : known === undefined
        ? internalErrorResponse
        : renderApiError(known);
    if (known === undefined) failure = error;
    // A translated database or network error is a safety net that fired: worth a look.
    else if (!isApiError(error)) logger.warn({ requestId, err: error, status: rendered.status }, "unexpected error translated");
    ctx.status = rendered.status;
    ctx.body = rendered.body;
    for (const [name, value] of Object.entries(rendered.headers ?? {})) ctx.set(name, value);
  } finally {
    const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
    const matched = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
    const route = typeof matched === "string" ? matched : null;
    // A request cut off by the server's timeouts was answered by the parser's refusal, whatever ctx says.
    const status = refusalSentFor(ctx.req) ?? ctx.status;
    observe({ method: ctx.method, route: route ?? "unmatched", status }, durationMs / 1000);
    const line = {
      requestId,
      method: ctx.method,
      route,
      status,
      durationMs: Math.round(durationMs * 100) / 100,
      companyId: ctx.state["companyId"] ?? null,
    };
    if (failure !== undefined) logger.error({ ...line, err: failure }, "request failed");
    else logger.info(line, "request");
  }
};
