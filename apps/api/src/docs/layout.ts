/**
 * The document every docs page shares: its head (the docs stylesheet, no
 * referrer, no favicon request) and the docs bar above the page's content.
 */
import { type DocsPage, docsNavigation } from "./navigation.ts";

export interface DocsDocument {
  /** The page's entry in the docs bar. */
  readonly current: DocsPage;
  /** The whole `<title>` text, as trusted HTML. */
  readonly title: string;
  /** Lines before the title (each indented and ending in a newline), as trusted HTML. */
  readonly head?: string;
  /** What follows the docs bar in `<body>`, as trusted HTML. */
  readonly body: string;
}

/** A docs page's whole HTML document around its `body`. */
export const docsDocument = ({ current, title, head = "", body }: DocsDocument): string => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="no-referrer">
${head}  <title>${title}</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="/docs/assets/docs.css">
</head>
<body>
  ${docsNavigation(current)}
  ${body}
</body>
</html>
`;
