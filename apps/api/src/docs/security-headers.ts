/**
 * Headers of the docs pages: a Content-Security-Policy that allows only this
 * origin (scripts are files, never inline; the <style> elements Scalar adds
 * at run time carry the page's nonce), no framing, no referrer. The one
 * relaxation is `style-src-attr 'unsafe-inline'`: Scalar writes `style="..."`
 * attributes through innerHTML (code blocks' line counts), which no nonce can
 * cover; an attribute style can neither run script nor, with img-src and
 * font-src limited to this origin, send anything anywhere
 * (docs/decisions/0402-docs-renderer.md).
 */
import { randomBytes } from "node:crypto";
import type { Context } from "koa";

/** A fresh nonce per page view, for the `<style>` elements Scalar adds (it reads `meta[property=csp-nonce]`). */
export const newNonce = (): string => randomBytes(18).toString("base64");

const policy = (directives: ReadonlyArray<string>): string => directives.join("; ");

/** The reference page: our scripts, our styles plus Scalar's nonced ones, fetches to this origin only. */
export const referencePolicy = (nonce: string): string =>
  policy([
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${nonce}'`,
    "style-src-attr 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ]);

/** The guide: no script at all. */
export const guidePolicy = policy([
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
]);

export const sendHtml = (ctx: Context, html: string, contentSecurityPolicy: string): void => {
  ctx.set("Content-Security-Policy", contentSecurityPolicy);
  ctx.set("X-Frame-Options", "DENY");
  ctx.set("Referrer-Policy", "no-referrer");
  ctx.set("Cross-Origin-Opener-Policy", "same-origin");
  ctx.set("Cross-Origin-Resource-Policy", "same-origin");
  ctx.type = "text/html; charset=utf-8";
  ctx.body = html;
};
