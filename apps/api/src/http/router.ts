/**
 * Builds the Koa router from the contract's endpoint declarations: for each
 * operation, authenticate and check its scope, read and decode the request,
 * run the handler, encode the reply with the declared success schema.
 */
import { type Endpoint, endpoints, rateLimits, type Scope } from "@dc/contract";
import Router from "@koa/router";
import { Schema } from "effect";
import type { Context } from "koa";
import { authenticate } from "../auth/bearer.ts";
import type { AppServices } from "../services.ts";
import { MissingScope, OAuthFailure } from "./api-error.ts";
import { decodeOrFail } from "./decode.ts";
import type { Handlers, Reply } from "./handler.ts";
import { consumeRateLimit, rateLimitHeaders, type RateLimitState, refundRateLimit } from "./rate-limit.ts";
import { mediaType, parseForm, parseJson, readRawBody, requireJson } from "./read-body.ts";

/** `/creditors/{id}` -> `/creditors/:id`. */
const koaPath = (path: string): string => path.replace(/\{([A-Za-z0-9_]+)\}/g, ":$1");

const EMPTY = Buffer.alloc(0);

type AnyEndpoint = Endpoint<unknown, unknown, unknown, unknown, Scope | null>;
type AnyHandler = (input: never) => Promise<Reply<unknown>>;

const readBody = async (ctx: Context, endpoint: AnyEndpoint): Promise<{ raw: Buffer; value: unknown }> => {
  const body = endpoint.body;
  if (body === undefined) return { raw: EMPTY, value: undefined };
  if (body.contentType === "application/json") {
    requireJson(ctx.get("content-type"));
    const raw = await readRawBody(ctx.req, body.maxBytes);
    return { raw, value: parseJson(raw) };
  }
  // Form bodies serve only the OAuth token endpoint, so their problems are OAuth
  // errors (RFC 6749 5.2), and unknown parameters are ignored (RFC 6749 3.2).
  const raw = await readRawBody(ctx.req, body.maxBytes);
  const invalidRequest = (description: string) => new OAuthFailure({ error: "invalid_request", description, status: 400 });
  if (mediaType(ctx.get("content-type")) !== "application/x-www-form-urlencoded") {
    throw invalidRequest("The request body must be application/x-www-form-urlencoded");
  }
  const { fields, repeated } = parseForm(raw);
  if (repeated.length > 0) throw invalidRequest(`Repeated parameter: ${repeated.join(", ")}`);
  return { raw, value: Schema.decodeUnknownSync(body.schema, { onExcessProperty: "ignore" })(fields) };
};

const runEndpoint = async (ctx: Context, services: AppServices, endpoint: AnyEndpoint, handler: AnyHandler) => {
  let principal;
  if (endpoint.scope !== null) {
    principal = await authenticate(services, ctx.get("authorization") || undefined);
    ctx.state["companyId"] = principal.companyId;
    if (!principal.scopes.has(endpoint.scope)) throw new MissingScope({ scope: endpoint.scope });
  }
  // Counted after authentication (the budget is the company's) and before the body is read.
  const limit = rateLimits[endpoint.rateLimit];
  let rateLimit: RateLimitState | undefined;
  if (limit !== null && principal !== undefined) {
    const subject = limit.per === "class" ? endpoint.rateLimit : endpoint.operationId;
    const scaled = { ...limit, requests: limit.requests * services.config.rateLimitScale };
    rateLimit = await consumeRateLimit(services.db, services.clock.now(), `company:${principal.companyId}:${subject}`, scaled);
    for (const [name, value] of Object.entries(rateLimitHeaders(rateLimit))) ctx.set(name, value);
  }
  const params = endpoint.params ? decodeOrFail(endpoint.params, ctx.params, "path") : undefined;
  const query = endpoint.query ? decodeOrFail(endpoint.query, { ...ctx.query }, "query") : undefined;
  const { raw, value } = await readBody(ctx, endpoint);
  const body =
    endpoint.body?.contentType === "application/json" ? decodeOrFail(endpoint.body.schema, value, "body") : value;
  const reply = await (handler as (input: unknown) => Promise<Reply<unknown>>)({
    params,
    query,
    body,
    rawBody: raw,
    principal,
    services,
    ctx,
  });
  if (reply.replay === true && rateLimit !== undefined) {
    await refundRateLimit(services.db, rateLimit);
    ctx.set("RateLimit-Remaining", String(rateLimit.remaining + 1));
  }
  ctx.status = reply.status ?? endpoint.success.status;
  for (const [name, headerValue] of Object.entries({ ...endpoint.success.headers, ...reply.headers })) ctx.set(name, headerValue);
  // Encoding with the declared schema both formats (dates) and checks the reply against the contract.
  ctx.body = Schema.encodeUnknownSync(endpoint.success.schema)(reply.body);
};

/** The router of every contract operation. */
export const buildRouter = (services: AppServices, handlers: Handlers): Router => {
  const router = new Router();
  for (const [operationId, declared] of Object.entries(endpoints)) {
    const endpoint = declared as AnyEndpoint;
    const handler = handlers[operationId as keyof Handlers] as AnyHandler;
    router.register(koaPath(endpoint.path), [endpoint.method.toUpperCase()], (ctx) =>
      runEndpoint(ctx, services, endpoint, handler),
    );
  }
  return router;
};
