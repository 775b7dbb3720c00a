/**
 * HTML building for the authorization pages: every interpolated value goes
 * through `escape`, and `layout` wraps a page's content in the document with
 * the one allowed stylesheet. No scripts anywhere.
 */
import { stylesheet } from "./styles.ts";

const ENTITIES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Escapes text for an HTML text node or a double-quoted attribute. */
export const escape = (value: string): string =>
  value.replace(/[&<>"']/g, (character) => ENTITIES[character] ?? character);

/** Hidden inputs carrying `fields` through a form post. */
export const hiddenFields = (fields: Readonly<Record<string, string>>): string =>
  Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escape(name)}" value="${escape(value)}">`)
    .join("\n      ");

/** The whole document around a page's `<main>` content. */
export const layout = (title: string, content: string): string => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="no-referrer">
  <meta name="robots" content="noindex, nofollow">
  <title>${escape(title)} · Debt Collection Platform</title>
  <style>${stylesheet}</style>
</head>
<body>
  <div class="brand" aria-hidden="true"><span class="brand-mark">DC</span><span>Debt Collection Platform</span></div>
  <main class="card">
    ${content}
  </main>
  <footer>Secured sign-in for API integrations · Never share your password with an application</footer>
</body>
</html>
`;
