/**
 * Builds the Koa router from the contract's endpoint declarations: for each
 * operation, authenticate and check its scope, read and decode the request,
 * run the handler, encode the reply with the declared success schema.
 */
import { type Endpoint, endpoints, rateLimits, rateLimitSubject, type Scope } from "@dc/contract";
import * as JsonText from "@dc/json-text";
import Router from "@koa/router";
import { Schema } from "effect";
import type { Context } from "koa";
import type { AppServices } from "../services.ts";
import { type Admit, type AdmissionRule, createAdmission } from "./fast-paths/admission.ts";
import { authorizationHeader } from "../auth/authorization-header.ts";
import { isApiError, OAuthFailure, PayloadTooLarge, renderApiError, UnsupportedContentEncoding } from "./api-error.ts";
import { decodeOrFail } from "./decode.ts";
import { compileReplySerializer, type Serialize } from "./fast-paths/encode-reply.ts";
import type { Handlers, Reply } from "./handler.ts";
import { keyedWrites, readIdempotencyKey, recordedReplay, type Replay, ReplayInstead, requestDigest } from "./idempotency.ts";
import type { InFlight } from "./in-flight.ts";
import { rateLimitHeaders, refundRateLimit } from "./rate-limit.ts";
import { hasContentCoding, mediaType, parseForm, parseJson, readRawBody, requireJson } from "./read-body.ts";

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
    // A compressed body would be read as garbage: refuse the coding, unread, naming the one accepted (RFC 9110 15.5.16, 12.5.3).
    if (hasContentCoding(ctx.req)) throw new UnsupportedContentEncoding();
    const raw = await readRawBody(ctx.req, body.maxBytes);
    return { raw, value: parseJson(raw, { unstorableTextPerRow: body.unstorableTextPerRow === true }) };
  }
  // Form bodies serve only the OAuth endpoints (token, revocation), so their problems
  // are OAuth errors (RFC 6749 5.2), and unknown parameters are ignored (RFC 6749 3.2).
  const invalidRequest = (description: string, status = 400) =>
    new OAuthFailure({ error: "invalid_request", description, status });
  let raw: Buffer;
  try {
    raw = await readRawBody(ctx.req, body.maxBytes);
  } catch (error) {
    if (error instanceof PayloadTooLarge) throw invalidRequest(`The request body is larger than ${body.maxBytes} bytes`, 413);
    throw error;
  }
  if (mediaType(ctx.get("content-type")) !== "application/x-www-form-urlencoded") {
    throw invalidRequest("The request body must be application/x-www-form-urlencoded");
  }
  if (hasContentCoding(ctx.req)) throw invalidRequest("Content-Encoding is not supported");
  const { fields, repeated } = parseForm(raw);
  if (repeated.length > 0) throw invalidRequest(`Repeated parameter: ${repeated.join(", ")}`);
  const unstorable = Object.entries(fields).find(([name, value]) => !JsonText.isStorable(name) || !JsonText.isStorable(value));
  if (unstorable !== undefined) throw invalidRequest(`Parameter ${JSON.stringify(unstorable[0])} must not contain NUL characters or unpaired surrogates`);
  return { raw, value: Schema.decodeUnknownSync(body.schema, { onExcessProperty: "ignore" })(fields) };
};

interface Operation {
  readonly endpoint: AnyEndpoint;
  readonly handler: AnyHandler;
  /** Undefined for the operations without a bearer token (the token endpoint, media URLs). */
  readonly admission: AdmissionRule | undefined;
  /** The reply's JSON text in its wire form: declared fields only, dates formatted (docs/decisions/0014). */
  readonly serializeReply: Serialize;
}

interface RouterDependencies {
  readonly services: AppServices;
  readonly admit: Admit;
  readonly inFlight: InFlight;
}

const admissionRule = (endpoint: AnyEndpoint, rateLimitScale: number): AdmissionRule | undefined => {
  if (endpoint.scope === null) return undefined;
  const limit = rateLimits[endpoint.rateLimit];
  const subject = rateLimitSubject(endpoint);
  return {
    scope: endpoint.scope,
    rateLimit:
      limit === null || subject === undefined
        ? undefined
        : { subject, limit: { ...limit, requests: limit.requests * rateLimitScale } },
  };
};

const runOperation = async (ctx: Context, { services, admit, inFlight }: RouterDependencies, operation: Operation) => {
  const { endpoint, handler } = operation;
  // Authenticated, scope-checked and counted against the company's budget before the body is read.
  const admitted = operation.admission === undefined ? undefined : await admit(authorizationHeader(ctx.req), operation.admission);
  const principal = admitted?.principal;
  const rateLimit = admitted?.rateLimit;
  if (principal !== undefined) ctx.state["companyId"] = principal.companyId;
  if (rateLimit !== undefined) for (const [name, value] of Object.entries(rateLimitHeaders(rateLimit))) ctx.set(name, value);
  const release = principal === undefined ? undefined : inFlight.enterCompany(principal.companyId);
  try {
    const params = endpoint.params ? decodeOrFail(endpoint.params, ctx.params, "path") : undefined;
    const query = endpoint.query ? decodeOrFail(endpoint.query, { ...ctx.query }, "query") : undefined;
    const key = endpoint.idempotencyKey === true && principal !== undefined ? readIdempotencyKey(ctx) : undefined;
    const { raw, value } = await readBody(ctx, endpoint);
    const keyed =
      key === undefined || principal === undefined
        ? undefined
        : { companyId: principal.companyId, key, operation: endpoint.operationId, requestSha256: requestDigest(endpoint.operationId, ctx, raw) };
    const refund = async () => {
      if (rateLimit === undefined) return;
      await refundRateLimit(services.db, rateLimit);
      ctx.set("RateLimit-Remaining", String(rateLimit.remaining + 1));
    };
    const sendReplay = async (replay: Replay) => {
      await refund();
      ctx.status = replay.status;
      for (const [name, headerValue] of Object.entries({ ...endpoint.success.headers, ...replay.headers })) ctx.set(name, headerValue);
      ctx.type = "application/json";
      ctx.body = replay.body;
    };
    // An answered key is answered again before anything else runs (docs/decisions/0024).
    const earlier = keyed === undefined ? undefined : await recordedReplay(services.db, keyed, services.clock.now());
    if (earlier !== undefined) return await sendReplay(earlier);
    const body =
      endpoint.body?.contentType === "application/json" ? decodeOrFail(endpoint.body.schema, value, "body", raw.length) : value;
    const writes = keyedWrites(services.db, services.clock, keyed, operation.serializeReply, endpoint.success.status);
    let reply: Reply<unknown>;
    try {
      reply = await (handler as (input: unknown) => Promise<Reply<unknown>>)({
        params,
        query,
        body,
        rawBody: raw,
        principal,
        services,
        ctx,
        transaction: writes.transaction,
      });
    } catch (error) {
      if (error instanceof ReplayInstead) return await sendReplay(error.replay);
      // A refusal can stem from a same-key twin's commit since the look at the key above (its debt now
      // taken, or what this request's checks look up now gone): the key is consulted under its claim first,
      // and the twin's answer, once committed, is this request's (docs/decisions/0024).
      if (keyed !== undefined && isApiError(error) && renderApiError(error).status < 500) {
        const settled = await writes.transaction(() => Promise.reject(error)).catch((outcome: unknown) => outcome);
        if (settled instanceof ReplayInstead) return await sendReplay(settled.replay);
      }
      throw error;
    }
    if (keyed !== undefined && writes.recordedBody() === undefined) {
      throw new Error(`${endpoint.operationId} takes an Idempotency-Key but answered without writing through input.transaction`);
    }
    if (reply.replay === true) await refund();
    ctx.status = reply.status ?? endpoint.success.status;
    for (const [name, headerValue] of Object.entries({ ...endpoint.success.headers, ...reply.headers })) ctx.set(name, headerValue);
    if (reply.document !== undefined) {
      ctx.type = reply.document.contentType;
      ctx.body = Buffer.from(reply.document.bytes);
      return;
    }
    // Written as JSON text directly: set the type first, or Koa would guess text/plain from a string.
    ctx.type = "application/json";
    ctx.body = writes.recordedBody() ?? operation.serializeReply(reply.body);
  } finally {
    release?.();
  }
};

/**
 * The router of every contract operation. Paths match exactly as the OpenAPI
 * document writes them: in their letter case and without a trailing slash
 * (docs/decisions/0025).
 */
export const buildRouter = (services: AppServices, handlers: Handlers, inFlight: InFlight): Router => {
  const router = new Router({ sensitive: true, strict: true });
  const dependencies: RouterDependencies = { services, admit: createAdmission(services.db, services.clock), inFlight };
  for (const [operationId, declared] of Object.entries(endpoints)) {
    const endpoint = declared as AnyEndpoint;
    const operation: Operation = {
      endpoint,
      handler: handlers[operationId as keyof Handlers] as AnyHandler,
      admission: admissionRule(endpoint, services.config.rateLimitScale),
      serializeReply: compileReplySerializer(endpoint.success.schema),
    };
    router.register(koaPath(endpoint.path), [endpoint.method.toUpperCase()], (ctx) => runOperation(ctx, dependencies, operation));
  }
  return router;
};
