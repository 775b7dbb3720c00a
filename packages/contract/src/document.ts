/** The service's OpenAPI document, built from the contract's endpoints. */
import { endpoints, pages } from "./index.ts";
import { buildOpenApiDocument } from "./openapi.ts";

const description = `The external API of the debt-collection platform.

Authenticate with OAuth 2.0 (\`POST /oauth/token\`), then send \`Authorization: Bearer <ACCESS_TOKEN>\`.

**Limits** (contract part 8): access tokens live 3600 s; request bodies up to 10 MiB and 20,000 rows on snapshot operations; page size default 20, maximum 100; rate limits per company: snapshot chunk upload 500/hour, one-request snapshot submit 50/hour, creditor list/get/update, debts by creditor, followup list and company profile 1,000/hour each.

**Errors** use the envelope \`{error: true, message, code}\` with \`code\` equal to the HTTP status.`;

export const openApiDocument = () =>
  buildOpenApiDocument(Object.values(endpoints), {
    title: "Debt Collection Platform API",
    version: "1.0.0",
    description,
  }, Object.values(pages));
