/** The service's OpenAPI document, built from the contract's endpoints. */
import { endpoints, pages, parserRefusals, providerCallbacks } from "./index.ts";
import { authorizationFormExample } from "./examples/account.ts";
import { operationExamples } from "./examples/operations.ts";
import { webhookEventExamples } from "./examples/webhook-events.ts";
import { buildOpenApiDocument } from "./openapi.ts";

const refusedBeforeRouting = parserRefusals
  .map((refusal) => `\`${refusal.status}\` ${refusal.message} (\`${refusal.errorCode}\`)`)
  .join(", ");

const description = `The external API of the debt-collection platform.

Authenticate with OAuth 2.0 (\`POST /oauth/token\`), then send \`Authorization: Bearer <ACCESS_TOKEN>\`.

**Limits**: access tokens live 3600 s; request bodies up to 10 MiB and 20,000 rows on snapshot operations; page size default 20, maximum 100; rate limits per company: snapshot chunk upload 500/hour, one-request snapshot submit 50/hour, creditor list/get/update, debts by creditor, followup list and company profile 1,000/hour each, and every other operation that takes a bearer token 1,000/hour of its own (each operation's \`x-rate-limit\`; a \`429\` \`rate_limited\`), with at most \`MAX_CONCURRENT_REQUESTS_PER_COMPANY\` requests of a company in progress per api process (a \`429\` \`too_many_concurrent_requests\`). Windows are fixed hours; every counted answer carries \`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\`, and a \`429\` carries \`Retry-After\`.

**Refused before routing**: on any path, a request Node's HTTP parser refuses is answered in the error envelope, and its connection closed but after a \`417\`: ${refusedBeforeRouting}.

**Paths** match exactly as written here: in their letter case, without a trailing slash and without empty segments; any other form is a \`404\` \`Route not found\`.

**Errors** use the envelope \`{error: true, message, code}\` with \`code\` equal to the HTTP status.`;

export const openApiDocument = () =>
  buildOpenApiDocument(Object.values(endpoints), {
    title: "Debt Collection Platform API",
    version: "1.0.0",
    description,
  }, Object.values(pages), operationExamples, webhookEventExamples, {
    submitAuthorization: { request: authorizationFormExample },
  }, Object.values(providerCallbacks));
