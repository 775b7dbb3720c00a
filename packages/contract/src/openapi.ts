/**
 * Emits the OpenAPI 3.1 document from the endpoint declarations. Schemas with
 * an `identifier` annotation become shared components; everything else is
 * inlined. Pure: no server, no I/O.
 */
import { JSONSchema, type Schema, SchemaAST } from "effect";
import type { AnyEndpoint, ErrorCase } from "./endpoint.ts";
import { ErrorEnvelope, OAuthError } from "./envelopes.ts";
import { scopeDescriptions } from "./scopes.ts";

type Json = Record<string, unknown>;

export interface DocumentInfo {
  readonly title: string;
  readonly version: string;
  readonly description: string;
}

const COMPONENT_PATH = "#/components/schemas/";

/** Builds the document for `endpoints` (in declaration order). */
export const buildOpenApiDocument = (endpoints: ReadonlyArray<AnyEndpoint>, info: DocumentInfo): Json => {
  const definitions: Record<string, JSONSchema.JsonSchema7> = {};
  const toJsonSchema = (ast: SchemaAST.AST): unknown =>
    JSONSchema.fromAST(ast, { definitions, definitionPath: COMPONENT_PATH, target: "openApi3.1" });
  const errorRef = (envelope: ErrorCase["envelope"]) => toJsonSchema((envelope === "api" ? ErrorEnvelope : OAuthError).ast);

  const parameters = (schema: Schema.Schema.Any | undefined, location: "path" | "query"): Json[] => {
    if (schema === undefined) return [];
    const ast = SchemaAST.encodedAST(schema.ast);
    if (!SchemaAST.isTypeLiteral(ast)) throw new Error(`${location} parameters must be a struct`);
    return SchemaAST.getPropertySignatures(schema.ast).map((property) => {
      const description = SchemaAST.getDescriptionAnnotation(property.type);
      return {
        name: String(property.name),
        in: location,
        required: location === "path" || !property.isOptional,
        ...(description._tag === "Some" ? { description: description.value } : {}),
        schema: toJsonSchema(property.type),
      };
    });
  };

  const errorResponses = (errors: ReadonlyArray<ErrorCase>): Json => {
    const byStatus = new Map<number, ErrorCase[]>();
    for (const error of errors) byStatus.set(error.status, [...(byStatus.get(error.status) ?? []), error]);
    const responses: Json = {};
    for (const [status, cases] of [...byStatus].sort(([a], [b]) => a - b)) {
      const envelope = cases[0]?.envelope ?? "api";
      responses[String(status)] = {
        description: cases.map((error) => `${error.message}: ${error.description}`).join(". "),
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
    const success: Json = {
      description: endpoint.success.description,
      content: { "application/json": { schema: toJsonSchema(endpoint.success.schema.ast) } },
      ...(endpoint.success.headers
        ? {
            headers: Object.fromEntries(
              Object.entries(endpoint.success.headers).map(([name, value]) => [
                name,
                { description: `Always \`${value}\``, schema: { type: "string", const: value } },
              ]),
            ),
          }
        : {}),
    };
    const alternates = Object.fromEntries(
      (endpoint.alsoSucceedsWith ?? []).map((alternate) => [
        String(alternate.status),
        { description: alternate.description, content: success["content"] },
      ]),
    );
    return {
      operationId: endpoint.operationId,
      summary: endpoint.summary,
      description:
        endpoint.scope === null ? endpoint.description : `${endpoint.description}\n\nRequired scope: \`${endpoint.scope}\`.`,
      tags: endpoint.tags,
      ...(endpoint.scope === null ? { security: [] } : { security: [{ oauth2: [endpoint.scope] }] }),
      parameters: [...parameters(endpoint.params, "path"), ...parameters(endpoint.query, "query")],
      ...(endpoint.body
        ? {
            requestBody: {
              required: true,
              description: `At most ${endpoint.body.maxBytes} bytes.`,
              content: { [endpoint.body.contentType]: { schema: toJsonSchema(endpoint.body.schema.ast) } },
            },
          }
        : {}),
      responses: {
        [String(endpoint.success.status)]: success,
        ...alternates,
        ...errorResponses(endpoint.errors),
      },
      "x-rate-limit-class": endpoint.rateLimit,
    };
  };

  const paths: Record<string, Json> = {};
  for (const endpoint of endpoints) {
    paths[endpoint.path] = { ...paths[endpoint.path], [endpoint.method]: operation(endpoint) };
  }
  // Make sure the error envelopes are components even if no operation referenced them yet.
  errorRef("api");
  errorRef("oauth");

  const scopes = { ...scopeDescriptions };
  const tags = [...new Set(endpoints.flatMap((endpoint) => endpoint.tags))].map((name) => ({ name }));
  return {
    openapi: "3.1.0",
    info: {
      title: info.title,
      version: info.version,
      description: info.description,
      "x-generated": "Generated from packages/contract by `pnpm codegen`. Do not edit.",
    },
    servers: [{ url: "{base_url}", variables: { base_url: { default: "http://localhost:3000" } } }],
    tags,
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(definitions).sort(([a], [b]) => a.localeCompare(b))),
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
};
