/**
 * The docs pages' own small assets, served from memory: the script that
 * starts Scalar on the reference page (a file, not an inline script, so the
 * Content-Security-Policy can say `script-src 'self'` and nothing more) and
 * the stylesheet of the pages' bar and of the guide.
 */
import { createHash } from "node:crypto";

/** Where the reference page finds its OpenAPI document. */
const DOCUMENT_PATH = "/external-api/v1/openapi.json";

// Loaded before Scalar. Scalar gives the page's nonce to most of the <style>
// elements it creates, not all (its toast and theme styles); tagging every
// <style> created by script lets the policy stay "self + this nonce" instead
// of 'unsafe-inline'. Scalar is then configured to use nothing remote (no
// fonts, telemetry, AI agent or MCP services of scalar.com) and to send
// "Test request" calls to this origin.
const startScript = `"use strict";
(function () {
  var meta = document.querySelector('meta[property="csp-nonce"]');
  var nonce = meta === null ? "" : meta.getAttribute("content");
  var createElement = Document.prototype.createElement;
  Document.prototype.createElement = function (tagName, options) {
    var element = createElement.call(this, tagName, options);
    if (nonce && String(tagName).toLowerCase() === "style") element.setAttribute("nonce", nonce);
    return element;
  };
  document.addEventListener("DOMContentLoaded", function () {
    window.Scalar.createApiReference("#reference", {
      url: ${JSON.stringify(DOCUMENT_PATH)},
      servers: [{ url: window.location.origin, description: "This server" }],
      withDefaultFonts: false,
      telemetry: false,
      showDeveloperTools: "never",
      agent: { disabled: true },
      mcp: { disabled: true },
      defaultOpenAllTags: true,
      documentDownloadType: "json",
      authentication: { preferredSecurityScheme: "oauth2" },
      metaData: { title: "API reference · Debt Collection Platform" }
    });
  });
})();
`;

const stylesheet = `:root { color-scheme: light dark; --bar: #1f2937; --ink: #111827; --muted: #4b5563; --line: #d1d5db; --code: #f3f4f6; --accent: #1d4ed8; }
@media (prefers-color-scheme: dark) { :root { --ink: #e5e7eb; --muted: #9ca3af; --line: #374151; --code: #1f2937; --accent: #93c5fd; } }
* { box-sizing: border-box; }
body { margin: 0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
.docs-bar { display: flex; flex-wrap: wrap; gap: 0.4rem 1.25rem; align-items: center; padding: 0.55rem 1.25rem; background: var(--bar); color: #f9fafb; font-size: 0.9rem; }
.docs-bar strong { margin-right: auto; font-weight: 600; }
.docs-bar a { color: #f9fafb; text-decoration: none; border-bottom: 2px solid transparent; padding: 0.15rem 0; }
.docs-bar a:hover, .docs-bar a:focus-visible, .docs-bar a[aria-current="page"] { border-bottom-color: #93c5fd; }
.guide { max-width: 52rem; margin: 0 auto; padding: 1.5rem 1.25rem 4rem; color: var(--ink); line-height: 1.6; }
.guide h1 { font-size: 1.9rem; margin: 1rem 0 0.5rem; }
.guide h2 { font-size: 1.3rem; margin: 2.25rem 0 0.5rem; padding-top: 1rem; border-top: 1px solid var(--line); }
.guide p, .guide li { color: var(--ink); }
.guide .lead { color: var(--muted); font-size: 1.05rem; }
.guide a { color: var(--accent); }
.guide code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.88em; background: var(--code); padding: 0.1em 0.3em; border-radius: 4px; overflow-wrap: anywhere; }
.guide pre { background: var(--code); padding: 0.9rem 1rem; border-radius: 6px; overflow-x: auto; border: 1px solid var(--line); }
.guide pre code { background: none; padding: 0; font-size: 0.85rem; overflow-wrap: normal; }
.guide .label { font-size: 0.78rem; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); margin: 1rem 0 -0.4rem; }
.guide table { border-collapse: collapse; width: 100%; font-size: 0.92rem; table-layout: fixed; }
.guide th, .guide td { text-align: left; padding: 0.35rem 0.6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
`;

export interface TextAsset {
  readonly body: string;
  readonly type: string;
  readonly etag: string;
}

const asset = (body: string, type: string): TextAsset => ({
  body,
  type,
  etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`,
});

export const startScriptAsset = asset(startScript, "text/javascript; charset=utf-8");
export const stylesheetAsset = asset(stylesheet, "text/css; charset=utf-8");
