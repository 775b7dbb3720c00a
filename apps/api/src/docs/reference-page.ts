/**
 * `GET /docs`: the interactive API reference. Scalar renders it in the
 * browser from `/external-api/v1/openapi.json`, so it always shows exactly
 * the operations the api serves.
 */
import { escape } from "../consent/html.ts";
import { docsNavigation } from "./navigation.ts";

export const referencePage = (nonce: string): string => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="no-referrer">
  <meta property="csp-nonce" content="${escape(nonce)}">
  <title>API reference · Debt Collection Platform</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="/docs/assets/docs.css">
</head>
<body>
  ${docsNavigation("reference")}
  <div id="reference"></div>
  <noscript><p>The API reference needs JavaScript. The OpenAPI document itself is at <a href="/external-api/v1/openapi.json">/external-api/v1/openapi.json</a>.</p></noscript>
  <script src="/docs/assets/docs.js"></script>
  <script src="/docs/assets/scalar.js"></script>
</body>
</html>
`;
