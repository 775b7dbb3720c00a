/**
 * The code blocks of the getting-started page (`/docs/guide`) as a reader
 * copies them: each `<p class="label">` and the `<pre><code>` under it, the
 * HTML escapes undone.
 */

const unescapeHtml = (text: string) =>
  text
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&amp;", "&");

/** The text of every block of `html` whose label `label` matches, in the page's order. */
export const guideBlocks = (html: string, label: RegExp): string[] =>
  [...html.matchAll(/<p class="label">([^<]*)<\/p>\n<pre><code>([\s\S]*?)<\/code><\/pre>/g)]
    .filter(([, name = ""]) => label.test(unescapeHtml(name)))
    .map(([, , code = ""]) => unescapeHtml(code));
