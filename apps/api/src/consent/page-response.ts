/**
 * Sending the authorization pages and their redirects under their policy
 * (../http/page-response.ts): no scripts, our stylesheet, forms to our
 * origin and the client's redirect URI's.
 */
import type { Context } from "koa";
import { type PagePolicy, sendHtmlPage, sendPageRedirect } from "../http/page-response.ts";
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

/** The authorization pages' policy: forms may lead to the client's redirect URI's origin. */
const consentPolicy = (redirectUri?: string): PagePolicy => ({
  defaultSrc: "'self'",
  styleSrc: stylesheetHash,
  imgSrc: "'self' data:",
  formTargets: formTarget(redirectUri),
});

/** Answers with an HTML page. `redirectUri` is the validated client redirect URI the page's forms may lead to. */
export const sendPage = (ctx: Context, status: number, html: string, redirectUri?: string): void =>
  sendHtmlPage(ctx, consentPolicy(redirectUri), status, html);

/** Answers with a redirect: 302 from the GET endpoint, 303 after a form post (RFC 9700 4.12). */
export const sendRedirect = (ctx: Context, status: 302 | 303, location: string): void =>
  sendPageRedirect(ctx, consentPolicy(), status, location);
