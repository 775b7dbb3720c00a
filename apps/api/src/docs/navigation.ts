/** The bar at the top of every docs page: the reference, the guide and the raw document. */
export type DocsPage = "reference" | "guide";

const link = (href: string, label: string, current: boolean): string =>
  `<a href="${href}"${current ? ' aria-current="page"' : ""}>${label}</a>`;

export const docsNavigation = (current: DocsPage): string => `<nav class="docs-bar" aria-label="Documentation">
    <strong>Debt Collection Platform API</strong>
    ${link("/docs/guide", "Getting started", current === "guide")}
    ${link("/docs", "API reference", current === "reference")}
    ${link("/external-api/v1/openapi.json", "OpenAPI document", false)}
  </nav>`;
