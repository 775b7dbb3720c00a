/**
 * Emits the OpenAPI 3.1 document from the endpoint declarations. Schemas with
 * an `identifier` annotation become shared components; everything else is
 * inlined. Pure: no server, no I/O.
 */
import { JSONSchema, type Schema, SchemaAST } from "effect";
import {
  type AnyEndpoint,
  type AnyPage,
  type ErrorCase,
  idempotencyKeyHeader,
  idempotentReplayedHeader,
  rateLimitHeaderNames,
  type ResponseHeader,
  responseHeaders,
} from "./endpoint.ts";
import { INVALID_SIGNATURE_MESSAGE, type ProviderCallback } from "./callbacks.ts";
import { clientCodeSample } from "./code-samples.ts";
import { ErrorEnvelope, MessageEnvelope, OAuthError } from "./envelopes.ts";
import { failureErrors } from "./errors.ts";
import type { OperationExample } from "./examples/operations.ts";
import { rateLimits, rateLimitSubject } from "./rate-limits.ts";
import { scopeDescriptions } from "./scopes.ts";
import { type Tag, tagDescriptions } from "./tags.ts";
import { webhookEvents, webhookEventTypes, webhookOperationId, webhookPayload, type WebhookEventType } from "./webhooks.ts";

/**
 * `x-rate-limit`: the company's budget for this operation, when it has one.
 * `sharers` are the operation ids counted on the same per-operation budget.
 */
const rateLimitExtension = (endpoint: AnyEndpoint, sharers: ReadonlyArray<string>) => {
  const limit = rateLimits[endpoint.rateLimit];
  const others = sharers.filter((operationId) => operationId !== endpoint.operationId);
  return limit === null
    ? {}
    : {
        "x-rate-limit": {
          requests: limit.requests,
          window_seconds: limit.windowSeconds,
          shared_by:
            limit.per === "class"
              ? `every ${endpoint.rateLimit} operation of the company`
              : others.length === 0
                ? "this operation, per company"
                : `this operation and ${others.map((operationId) => `\`${operationId}\``).join(", ")}, per company`,
        },
      };
};

type Json = Record<string, unknown>;

export interface DocumentInfo {
  readonly title: string;
  readonly version: string;
  readonly description: string;
}

const COMPONENT_PATH = "#/components/schemas/";

/**
 * Effect marks its built-in schemas (unknown, any, object...) with `$id`s such
 * as `/schemas/unknown`; repeated in one document they are duplicate ids that
 * validators reject, and they identify nothing. Removed in place.
 */
const stripBuiltinIds = (value: unknown): void => {
  if (Array.isArray(value)) value.forEach(stripBuiltinIds);
  else if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    if (typeof record["$id"] === "string" && record["$id"].startsWith("/schemas/")) delete record["$id"];
    Object.values(record).forEach(stripBuiltinIds);
  }
};
const WEBHOOK_TAG: Tag = "Webhook events";

/**
 * Effect titles every refinement with its constructor's name (`maxLength(255)`,
 * `int`, `nonNegative`...) and its built-in schemas with theirs (`unknown`):
 * labels of the schema library, not of the API, which renderers show as if
 * they were type names. The document's schemas carry no title; removed in
 * place, outside examples. The constraint itself (`maxLength`, `minimum`...)
 * stays.
 */
const stripSchemaTitles = (value: unknown): void => {
  if (Array.isArray(value)) value.forEach(stripSchemaTitles);
  else if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    if (typeof record["title"] === "string") delete record["title"];
    for (const [key, child] of Object.entries(record)) {
      // Examples and code samples are data, not schemas: a `title` field in them is kept.
      if (key !== "example" && key !== "examples" && key !== "x-codeSamples") stripSchemaTitles(child);
    }
  }
};

/**
 * Builds the document for `endpoints` and the browser-facing `pages` (in
 * declaration order), with each endpoint's example (`examples`, by operation
 * id) shown on its request body and success answer and turned into a
 * `@dc/client` code sample, each webhook event's payload example
 * (`eventExamples`) on its request body, and a page's form example
 * (`pageExamples`) on its body.
 */
export const buildOpenApiDocument = (
  endpoints: ReadonlyArray<AnyEndpoint>,
  info: DocumentInfo,
  pages: ReadonlyArray<AnyPage> = [],
  examples: Readonly<Record<string, OperationExample>> = {},
  eventExamples: Readonly<Partial<Record<WebhookEventType, unknown>>> = {},
  pageExamples: Readonly<Record<string, { readonly request?: unknown }>> = {},
  callbacks: ReadonlyArray<ProviderCallback> = [],
): Json => {
  const definitions: Record<string, JSONSchema.JsonSchema7> = {};
  const budgetSharers = new Map<string, Array<string>>();
  for (const endpoint of endpoints) {
    const subject = rateLimitSubject(endpoint);
    if (subject !== undefined) budgetSharers.set(subject, [...(budgetSharers.get(subject) ?? []), endpoint.operationId]);
  }
  const toJsonSchema = (ast: SchemaAST.AST): unknown =>
    JSONSchema.fromAST(ast, { definitions, definitionPath: COMPONENT_PATH, target: "openApi3.1" });
  const errorRef = (envelope: ErrorCase["envelope"]) => toJsonSchema((envelope === "api" ? ErrorEnvelope : OAuthError).ast);

  const parameters = (schema: Schema.Schema.Any | undefined, location: "path" | "query"): Json[] => {
    if (schema === undefined) return [];
    const ast = SchemaAST.encodedAST(schema.ast);
    if (!SchemaAST.isTypeLiteral(ast)) throw new Error(`${location} parameters must be a struct`);
    // A parameter with a default is optional on the wire though required in the decoded type.
    const optionalOnWire = new Set(
      SchemaAST.getPropertySignatures(ast).filter((property) => property.isOptional).map((property) => String(property.name)),
    );
    return SchemaAST.getPropertySignatures(schema.ast).map((property) => {
      // An optional parameter's type is `T | undefined`; the parameter's schema is T. Any other union (an enum of
      // literals) is the parameter's own schema, kept whole with its annotations (description, identifier).
      const type =
        SchemaAST.isUnion(property.type) && property.type.types.some(SchemaAST.isUndefinedKeyword)
          ? SchemaAST.Union.make(property.type.types.filter((member) => !SchemaAST.isUndefinedKeyword(member)))
          : property.type;
      const description = SchemaAST.getDescriptionAnnotation(type);
      return {
        name: String(property.name),
        in: location,
        required: location === "path" || !optionalOnWire.has(String(property.name)),
        ...(description._tag === "Some" ? { description: description.value } : {}),
        schema: toJsonSchema(type),
      };
    });
  };

  /** References to `components.headers`, each name once; undefined when there is none. */
  const headerRefs = (names: ReadonlyArray<ResponseHeader>): Json | undefined =>
    names.length === 0 ? undefined : Object.fromEntries([...new Set(names)].map((name) => [name, { $ref: `#/components/headers/${name}` }]));

  /**
   * `rateLimited`: the operation counts against a budget, so every answer
   * after its token is admitted carries the budget's headers (a 401 comes
   * before that).
   */
  const errorResponses = (errors: ReadonlyArray<ErrorCase>, rateLimited: boolean): Json => {
    const byStatus = new Map<number, ErrorCase[]>();
    for (const error of errors) byStatus.set(error.status, [...(byStatus.get(error.status) ?? []), error]);
    const responses: Json = {};
    for (const [status, cases] of [...byStatus].sort(([a], [b]) => a - b)) {
      const envelope = cases[0]?.envelope ?? "api";
      const headers = headerRefs([
        ...cases.flatMap((error) => error.headers ?? []),
        ...(rateLimited && status !== 401 ? rateLimitHeaderNames : []),
      ]);
      responses[String(status)] = {
        description: cases.map((error) => `${error.message}: ${error.description}`).join(". "),
        ...(headers === undefined ? {} : { headers }),
        content: {
          "application/json": {
            schema: errorRef(envelope),
            examples: Object.fromEntries(
              cases.map((error, index) => [
                `${status}_${index}`,
                {
                  summary: error.description,
                  value:
                    error.envelope === "api"
                      ? { error: true, message: error.message, code: status, ...(error.errorCode ? { error_code: error.errorCode } : {}) }
                      : { error: error.message, error_description: error.description },
                },
              ]),
            ),
          },
        },
      };
    }
    return responses;
  };

  const operation = (endpoint: AnyEndpoint): Json => {
    // Counted once its token is admitted: an operation with a scope and a budget (the api's admission rule).
    const rateLimited = endpoint.scope !== null && rateLimitSubject(endpoint) !== undefined;
    const headers = {
      ...headerRefs(rateLimited ? rateLimitHeaderNames : []),
      ...Object.fromEntries(
        Object.entries(endpoint.success.headers ?? {}).map(([name, value]) => [
          name,
          { description: `Always \`${value}\``, schema: { type: "string", const: value } },
        ]),
      ),
      ...Object.fromEntries(
        Object.entries(endpoint.success.replyHeaders ?? {}).map(([name, description]) => [
          name,
          { description, required: true, schema: { type: "string" } },
        ]),
      ),
      ...Object.fromEntries(
        Object.entries(endpoint.success.optionalReplyHeaders ?? {}).map(([name, description]) => [
          name,
          { description, schema: { type: "string" } },
        ]),
      ),
      ...(endpoint.idempotencyKey === true
        ? {
            [idempotentReplayedHeader.name]: {
              description: idempotentReplayedHeader.description,
              schema: { type: "string", const: "true" },
            },
          }
        : {}),
    };
    const example = examples[endpoint.operationId];
    const success: Json = {
      description: endpoint.success.description,
      content: {
        "application/json": {
          schema: toJsonSchema(endpoint.success.schema.ast),
          ...(example === undefined ? {} : { example: example.response }),
        },
      },
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
    };
    // The same body and headers under another status.
    const alternates = Object.fromEntries(
      (endpoint.alsoSucceedsWith ?? []).map((alternate) => [
        String(alternate.status),
        { ...success, description: alternate.description },
      ]),
    );
    // Documents of one status (a PDF or an image) are one response with a content entry per media type.
    const documents: Record<string, { description: string; content: Record<string, Json> }> = {};
    for (const reply of endpoint.documentReplies ?? []) {
      const known = documents[String(reply.status)];
      const content = { schema: { type: "string", format: "binary" } };
      if (known === undefined) {
        documents[String(reply.status)] = { description: reply.description, content: { [reply.contentType]: content } };
      } else {
        known.description = `${known.description}; ${reply.description}`;
        known.content[reply.contentType] = content;
      }
    }
    return {
      operationId: endpoint.operationId,
      summary: endpoint.summary,
      description:
        endpoint.scope === null ? endpoint.description : `${endpoint.description}\n\nRequired scope: \`${endpoint.scope}\`.`,
      tags: endpoint.tags,
      ...(endpoint.scope === null ? { security: [] } : { security: [{ oauth2: [endpoint.scope] }] }),
      parameters: [
        ...parameters(endpoint.params, "path"),
        ...parameters(endpoint.query, "query"),
        ...Object.entries(endpoint.requestHeaders ?? {}).map(([name, description]) => ({
          name,
          in: "header",
          required: false,
          description,
          schema: { type: "string" },
        })),
              ...(endpoint.idempotencyKey === true
          ? [
              {
                name: idempotencyKeyHeader.name,
                in: "header",
                required: false,
                description: idempotencyKeyHeader.description,
                schema: { type: "string", minLength: 1 },
                example: "8e03978e-40d5-43e8-bc93-6894a57f9324",
              },
            ]
          : []),
      ],
      ...(endpoint.body
        ? {
            requestBody: {
              required: true,
              description: `At most ${endpoint.body.maxBytes} bytes.`,
              content: {
                [endpoint.body.contentType]: {
                  schema: toJsonSchema(endpoint.body.schema.ast),
                  ...(example?.request === undefined ? {} : { example: example.request }),
                },
              },
            },
          }
        : {}),
      responses: {
        [String(endpoint.success.status)]: success,
        ...alternates,
        ...documents,
        ...errorResponses(endpoint.errors, rateLimited),
      },
      ...rateLimitExtension(endpoint, budgetSharers.get(rateLimitSubject(endpoint) ?? "") ?? []),
      ...(example === undefined
        ? {}
        : { "x-codeSamples": [{ lang: "TypeScript", label: "@dc/client", source: clientCodeSample(endpoint, example) }] }),
    };
  };

  /** A page's JSON answer in the API's envelopes: the error envelope, or `{error:false, message}` for a success. */
  const envelopeContent = (status: number, answers: ReadonlyArray<string>, errorCode: string | undefined): Json => ({
    schema: status >= 400 ? errorRef("api") : toJsonSchema(MessageEnvelope.ast),
    examples: Object.fromEntries(
      answers.map((message, index) => [
        `${status}_${index}`,
        {
          summary: message,
          value:
            status >= 400
              ? { error: true, message, code: status, ...(errorCode === undefined ? {} : { error_code: errorCode }) }
              : { error: false, message },
        },
      ]),
    ),
  });

  // Pages answer HTML or redirects, or (the JSON webhooks a provider calls) the API's envelopes.
  const pageOperation = (page: AnyPage): Json => ({
    operationId: page.operationId,
    summary: page.summary,
    description: page.description,
    tags: page.tags,
    security: [],
    parameters: [...parameters(page.params, "path"), ...parameters(page.query, "query")],
    ...(page.body
      ? {
          requestBody: {
            required: true,
            description:
              page.body.multipart === undefined
                ? `At most ${page.body.maxBytes} bytes.`
                : `At most ${page.body.maxBytes} bytes; as \`multipart/form-data\`, at most ${page.body.multipart.maxBytes}.`,
            content: {
              [page.body.contentType]: {
                schema: toJsonSchema(page.body.schema.ast),
                ...(pageExamples[page.operationId]?.request === undefined ? {} : { example: pageExamples[page.operationId]?.request }),
              },
              ...(page.body.multipart === undefined
                ? {}
                : {
                    "multipart/form-data": {
                      schema: toJsonSchema(page.body.multipart.schema.ast),
                      encoding: Object.fromEntries(
                        Object.entries(page.body.multipart.files).map(([name, types]) => [name, { contentType: types.join(", ") }]),
                      ),
                    },
                  }),
            },
          },
        }
      : {}),
    responses: {
      ...Object.fromEntries(
        page.responses.map((response) => [
          String(response.status),
          {
            description: response.description,
            ...(response.headers
              ? {
                  headers: Object.fromEntries(
                    Object.entries(response.headers).map(([name, description]) => [name, { description, schema: { type: "string" } }]),
                  ),
                }
              : {}),
            ...(response.html
              ? { content: { "text/html": { schema: { type: "string" } } } }
              : response.messages !== undefined
                ? { content: { "application/json": envelopeContent(response.status, response.messages, response.errorCode) } }
                : response.contentType === undefined
                ? {}
                : { content: { [response.contentType]: { schema: { type: "string" } } } }),
          },
        ]),
      ),
      ...errorResponses(page.errors ?? [], false),
    },
  });

  const paths: Record<string, Json> = {};
  for (const endpoint of endpoints) {
    paths[endpoint.path] = { ...paths[endpoint.path], [endpoint.method]: operation(endpoint) };
  }
  for (const page of pages) {
    paths[page.path] = { ...paths[page.path], [page.method]: pageOperation(page) };
  }
  // Provider callbacks: public, the provider's signature instead of a bearer token (docs/channels.md).
  for (const callback of callbacks) {
    paths[callback.path] = {
      ...paths[callback.path],
      [callback.method]: {
        operationId: callback.operationId,
        summary: callback.summary,
        description: callback.description,
        tags: callback.tags,
        security: [],
        "x-signature": { header: callback.signature.header, description: callback.signature.description },
        parameters: [
          ...(callback.path.includes("{company_id}")
            ? [
                {
                  name: "company_id",
                  in: "path",
                  required: true,
                  description: "The company's id, part of the callback URL the platform gives the provider",
                  schema: { type: "string" },
                },
              ]
            : []),
          {
            name: callback.signature.header,
            in: "header",
            required: true,
            description: callback.signature.description,
            schema: { type: "string" },
          },
          ...(callback.signature.timestampHeader === undefined
            ? []
            : [
                {
                  name: callback.signature.timestampHeader,
                  in: "header",
                  required: true,
                  description: "The signed time; a request older than the tolerance is refused as a replay",
                  schema: { type: "string" },
                },
              ]),
        ],
        requestBody: {
          required: true,
          description: `The provider's documented payload. At most ${callback.maxBytes} bytes.`,
          content: { [callback.contentType]: { schema: { type: "object", additionalProperties: true } } },
        },
        responses: {
          [String(callback.success.status)]: {
            description: callback.success.description,
            ...(callback.success.contentType === undefined
              ? {}
              : { content: { [callback.success.contentType]: { schema: { type: "string" } } } }),
          },
          "403": {
            description: `${INVALID_SIGNATURE_MESSAGE}: nothing is written`,
            content: { "application/json": { schema: errorRef("api") } },
          },
          "404": {
            description: "Unknown company",
            content: { "application/json": { schema: errorRef("api") } },
          },
          "413": {
            description: "The body is larger than the limit",
            content: { "application/json": { schema: errorRef("api") } },
          },
          // Nothing stored: the provider retries (docs/decisions/0685).
          ...errorResponses(failureErrors, false),
        },
      },
    };
  }
  // OpenAPI 3.1 `webhooks`: the requests the service sends to the company's endpoints (docs/webhooks.md).
  const webhookOperation = (type: WebhookEventType): Json => ({
    operationId: webhookOperationId(type),
    summary: webhookEvents[type].summary,
    description:
      `${webhookEvents[type].description}\n\nSent as \`POST\` to every enabled endpoint subscribed to \`${type}\`, signed ` +
      "per Standard Webhooks v1. Any 2xx acknowledges; 410 disables the endpoint; anything else, a redirect or no answer " +
      "within 10 seconds is retried for about three and a half days (docs/webhooks.md).",
    tags: [WEBHOOK_TAG],
    security: [],
    parameters: [
      { name: "webhook-id", in: "header", required: true, description: "The event id (`evt_...`): the same on every retry and replay; deduplicate on it", schema: { type: "string" } },
      { name: "webhook-timestamp", in: "header", required: true, description: "Unix seconds of this attempt; reject messages older than a few minutes", schema: { type: "string", pattern: "^[0-9]+$" } },
      { name: "webhook-signature", in: "header", required: true, description: "Space-separated `v1,<base64 HMAC-SHA256 of \"{webhook-id}.{webhook-timestamp}.{body}\">`; two during a secret rotation's overlap", schema: { type: "string" } },
    ],
    requestBody: {
      required: true,
      content: {
        "application/json": {
          schema: toJsonSchema(webhookPayload(type).ast),
          ...(eventExamples[type] === undefined ? {} : { example: eventExamples[type] }),
        },
      },
    },
    responses: {
      "200": { description: "Any 2xx status acknowledges the delivery" },
      "410": { description: "Gone: the endpoint is disabled and receives nothing more until re-enabled" },
      default: { description: "Any other status, a redirect (not followed) or a timeout: retried with backoff; `Retry-After` is honoured" },
    },
  });
  const webhooks = Object.fromEntries(webhookEventTypes.map((type) => [type, { post: webhookOperation(type) }]));

  // Make sure the error envelopes are components even if no operation referenced them yet.
  errorRef("api");
  errorRef("oauth");

  const scopes = { ...scopeDescriptions };
  const tags = [...new Set([...endpoints, ...pages, ...callbacks].flatMap((operation) => operation.tags)), WEBHOOK_TAG].map((name) => ({
    name,
    description: tagDescriptions[name],
  }));
  const document = {
    openapi: "3.1.0",
    info: {
      title: info.title,
      version: info.version,
      description: info.description,
      contact: { name: "API support", email: "api-support@debt-collection.example" },
      "x-generated": "Generated from packages/contract by `pnpm codegen`. Do not edit.",
    },
    servers: [
      {
        url: "{base_url}",
        description: "The platform's address: HTTPS only in production; `npm start` serves http://localhost:3000",
        variables: { base_url: { default: "http://localhost:3000" } },
      },
    ],
    tags,
    paths,
    webhooks,
    components: {
      schemas: Object.fromEntries(Object.entries(definitions).sort(([a], [b]) => a.localeCompare(b))),
      headers: Object.fromEntries(
        Object.entries(responseHeaders).map(([name, description]) => [
          name,
          { description, schema: name === "WWW-Authenticate" ? { type: "string" } : { type: "integer", minimum: 0 } },
        ]),
      ),
      securitySchemes: {
        oauth2: {
          type: "oauth2",
          description: "OAuth 2.0 bearer tokens restricted by scope. Access tokens expire after 3600 seconds.",
          flows: {
            clientCredentials: { tokenUrl: "/oauth/token", scopes },
            authorizationCode: {
              authorizationUrl: "/oauth/authorize",
              tokenUrl: "/oauth/token",
              refreshUrl: "/oauth/token",
              scopes,
            },
          },
        },
      },
    },
  };
  stripBuiltinIds(document);
  stripSchemaTitles(document.paths);
  stripSchemaTitles(document.webhooks);
  stripSchemaTitles(document.components);
  return document;
};
