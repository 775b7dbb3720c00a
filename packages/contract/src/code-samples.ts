/**
 * The `@dc/client` code sample of each operation (the OpenAPI extension
 * `x-codeSamples`, which Scalar shows beside its own curl and fetch
 * samples): the typed call with the operation's example parameters and body.
 * packages/client/test/code-samples.test.ts compiles every sample against
 * the client, so a sample that would not compile fails there.
 */
import type { AnyEndpoint } from "./endpoint.ts";
import type { OperationExample } from "./examples/operations.ts";

/** A JSON value as a TypeScript literal: keys unquoted where they are identifiers, indented `indent` spaces. */
const literal = (value: unknown, indent: number): string =>
  JSON.stringify(value, null, 2)
    .replace(/^(\s*)"([A-Za-z_$][\w$]*)":/gm, "$1$2:")
    .replaceAll("\n", `\n${" ".repeat(indent)}`);

/** The client, asking for the operation's scope (by default it asks for every scope the OAuth client holds). */
const setup = (endpoint: AnyEndpoint) => `import { createClient } from "@dc/client";

const api = createClient({
  baseUrl: "https://api.example.com",
  clientId: "dcc_3f9a1c7e5b2d4a60",
  clientSecret: process.env["DC_CLIENT_SECRET"] ?? "",${endpoint.scope === null ? "" : `\n  scope: ${JSON.stringify(endpoint.scope)},`}
});
`;

const outcome = `if (result.error) console.error(result.error); // ClientError: api, oauth, rate_limited or network
else console.log(result.data);`;

/** The sample's source for `endpoint`, built from its example. */
export const clientCodeSample = (endpoint: AnyEndpoint, example: OperationExample): string => {
  // The client obtains, caches and renews its token itself: that is the sample of the token endpoint.
  if (endpoint.operationId === "issueToken") {
    return `${setup(endpoint)}
const token = await api.tokens.get(); // POST /oauth/token on first use, cached until 60 s before expiry
console.log(token.scope, new Date(token.expiresAt));`;
  }
  const params = {
    ...(example.path === undefined ? {} : { path: example.path }),
    ...(example.query === undefined ? {} : { query: example.query }),
  };
  const lines = [
    ...(Object.keys(params).length === 0 ? [] : [`  params: ${literal(params, 2)},`]),
    ...(example.request === undefined ? [] : [`  body: ${literal(example.request, 2)},`]),
    ...(endpoint.body?.contentType === "application/x-www-form-urlencoded"
      ? [
          "  bodySerializer: (body) => new URLSearchParams(body).toString(),",
          '  headers: { "Content-Type": "application/x-www-form-urlencoded" },',
        ]
      : []),
  ];
  const call = `api.${endpoint.method.toUpperCase()}(${JSON.stringify(endpoint.path)}`;
  return `${setup(endpoint)}
const result = await ${lines.length === 0 ? `${call});` : `${call}, {\n${lines.join("\n")}\n});`}
${outcome}`;
};
