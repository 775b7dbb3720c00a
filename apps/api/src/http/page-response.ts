/**
 * Sending the api's HTML pages (the authorization pages, the debtor page,
 * the e-mail pages) and their redirects with the headers that make them safe
 * to show: a Content-Security-Policy without scripts and with
 * `frame-ancestors 'none'` (each family of pages says what else its policy
 * allows), X-Frame-Options, no referrer, no caching, isolation from other
 * origins, and no CORS headers at all. `X-Content-Type-Options` is the app's,
 * on every response.
 */
import type { Context } from "koa";

/** What a family of pages allows besides scripts-never, framing-never and `base-uri 'none'`. */
export interface PagePolicy {
  /** `default-src`. */
  readonly defaultSrc: string;
  /** `style-src`: the hash of the one stylesheet the family inlines. */
  readonly styleSrc: string;
  readonly imgSrc: string;
  /** The origins besides our own that the pages' forms, and the redirects after them, may lead to (space-first). */
  readonly formTargets: string;
}

const setPageHeaders = (ctx: Context, policy: PagePolicy): void => {
  ctx.set(
    "Content-Security-Policy",
    [
      `default-src ${policy.defaultSrc}`,
      "script-src 'none'",
      `style-src ${policy.styleSrc}`,
      `img-src ${policy.imgSrc}`,
      `form-action 'self'${policy.formTargets}`,
      "frame-ancestors 'none'",
      "base-uri 'none'",
      "object-src 'none'",
    ].join("; "),
  );
  ctx.set("X-Frame-Options", "DENY");
  ctx.set("Referrer-Policy", "no-referrer");
  ctx.set("Cross-Origin-Opener-Policy", "same-origin");
  ctx.set("Cross-Origin-Resource-Policy", "same-origin");
  ctx.set("Cache-Control", "no-store");
  ctx.set("Pragma", "no-cache");
};

/** Answers with an HTML page under `policy`. */
export const sendHtmlPage = (ctx: Context, policy: PagePolicy, status: number, html: string): void => {
  setPageHeaders(ctx, policy);
  ctx.status = status;
  ctx.type = "text/html; charset=utf-8";
  ctx.body = html;
};

/** Answers with a redirect under `policy`: 302 from a GET, 303 after a form post (RFC 9700 4.12). */
export const sendPageRedirect = (ctx: Context, policy: PagePolicy, status: 302 | 303, location: string): void => {
  setPageHeaders(ctx, policy);
  ctx.status = status;
  ctx.set("Location", location);
  ctx.body = "";
};
