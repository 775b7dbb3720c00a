/**
 * `GET /docs`: the interactive API reference. Scalar renders it in the
 * browser from `/external-api/v1/openapi.json`, so it always shows exactly
 * the operations the api serves.
 */
import { escape } from "../consent/html.ts";
import { docsDocument } from "./layout.ts";

export const referencePage = (nonce: string): string =>
  docsDocument({
    current: "reference",
    title: "API reference · Debt Collection Platform",
    head: `  <meta property="csp-nonce" content="${escape(nonce)}">\n`,
    body: `<div id="reference"></div>
  <noscript><p>The API reference needs JavaScript. The OpenAPI document itself is at <a href="/external-api/v1/openapi.json">/external-api/v1/openapi.json</a>.</p></noscript>
  <script src="/docs/assets/docs.js"></script>
  <script src="/docs/assets/scalar.js"></script>`,
  });
