/**
 * Sending the authorization pages and their redirects with the headers that
 * make them safe to show: a Content-Security-Policy without scripts and with
 * `frame-ancestors 'none'`, X-Frame-Options, no referrer, no caching, and no
 * CORS headers at all.
 */
import type { Context } from "koa";
import { stylesheetHash } from "./styles.ts";

/**
 * The origin a page's forms may end up at besides our own: Chrome applies
 * `form-action` to the redirect that follows a post, so approving or denying
 * needs the client's redirect URI origin allowed.
 */
const formTarget = (redirectUri: string | undefined): string => {
  if (redirectUri === undefined) return "";
  try {
    const origin = new URL(redirectUri).origin;
    return /^https?:\/\/[A-Za-z0-9.:[\]-]+$/.test(origin) ? ` ${origin}` : "";
  } catch {
    return "";
  }
};

const setPageHeaders = (ctx: Context, redirectUri?: string) => {
  ctx.set(
    "Content-Security-Policy",
    [
      "default-src 'self'",
      "script-src 'none'",
      `style-src ${stylesheetHash}`,
      "img-src 'self' data:",
      `form-action 'self'${formTarget(redirectUri)}`,
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

/** Answers with an HTML page. `redirectUri` is the validated client redirect URI the page's forms may lead to. */
export const sendPage = (ctx: Context, status: number, html: string, redirectUri?: string): void => {
  setPageHeaders(ctx, redirectUri);
  ctx.status = status;
  ctx.type = "text/html; charset=utf-8";
  ctx.body = html;
};

/** Answers with a redirect: 302 from the GET endpoint, 303 after a form post (RFC 9700 4.12). */
export const sendRedirect = (ctx: Context, status: 302 | 303, location: string): void => {
  setPageHeaders(ctx);
  ctx.status = status;
  ctx.set("Location", location);
  ctx.body = "";
};
