/**
 * The browser's sign-in state on the authorization pages (docs/decisions/0204).
 * One HttpOnly, SameSite=Lax cookie holds 32 random bytes. Before sign-in it
 * only binds the forms to this browser; after sign-in a fresh value (never
 * the pre-sign-in one, against session fixation) names a row of
 * `oauth_login_sessions` by its SHA-256. The anti-forgery token of every
 * form is a MAC, under a key derived from the api's secret, of the cookie and
 * of the authorization request the page shows (docs/decisions/0540): a page
 * of another site can neither read nor compute it, and a form posted with
 * other hidden parameters than the page showed (a wider scope, another
 * client) fails it, even from the signed-in user, who can read the cookie
 * but not the key. Over https the cookie is `__Host-` prefixed and Secure.
 */
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import { findLiveSession, insertLoginSession, revokeLoginSession } from "@dc/db";
import type { Context } from "koa";
import { hashSecret } from "../oauth/secrets.ts";
import type { AppServices } from "../services.ts";

/** A sign-in lasts one hour at most, whatever happens in it. */
const SESSION_SECONDS = 3600;

const COOKIE_VALUE = /^[A-Za-z0-9_-]{43}$/;

export interface SignedInUser {
  readonly sessionId: number;
  readonly userId: number;
  readonly companyId: number;
  readonly email: string;
}

export interface Browser {
  /** The cookie value, when the browser sent a well-formed one. */
  readonly cookie: string | undefined;
  readonly user: SignedInUser | undefined;
}

const cookieSettings = (ctx: Context, services: AppServices) => {
  const secure =
    services.config.environment === "production" ||
    ctx.secure ||
    (services.config.publicBaseUrl?.startsWith("https://") ?? false);
  return { secure, name: secure ? "__Host-dc_oauth_session" : "dc_oauth_session" };
};

const readCookie = (ctx: Context, name: string): string | undefined => {
  for (const part of (ctx.get("cookie") || "").split(";")) {
    const separator = part.indexOf("=");
    if (separator > 0 && part.slice(0, separator).trim() === name) {
      const value = part.slice(separator + 1).trim();
      return COOKIE_VALUE.test(value) ? value : undefined;
    }
  }
  return undefined;
};

const writeCookie = (ctx: Context, services: AppServices, value: string): void => {
  const { secure, name } = cookieSettings(ctx, services);
  ctx.append(
    "Set-Cookie",
    `${name}=${value}; Path=/; Max-Age=${SESSION_SECONDS}; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`,
  );
};

const newCookieValue = () => randomBytes(32).toString("base64url");

const formKeys = new WeakMap<Uint8Array, Buffer>();

/** The MAC key of the forms' tokens, derived once per secret (as the media URLs' key is). */
const formKeyOf = (secret: Uint8Array): Buffer => {
  let key = formKeys.get(secret);
  if (key === undefined) {
    key = Buffer.from(hkdfSync("sha256", secret, "debt-collection/oauth-forms", "hmac-sha256 v1", 32));
    formKeys.set(secret, key);
  }
  return key;
};

/**
 * The anti-forgery token of the forms shown to the browser holding `cookie`
 * for the authorization request `parameters` (in the fixed order
 * `authorizationParameters` gives them), under the api's `secret`.
 */
export const formTokenFor = (
  secret: Uint8Array,
  cookie: string,
  parameters: Readonly<Record<string, string>>,
): string =>
  createHmac("sha256", formKeyOf(secret))
    .update(JSON.stringify(["v1", cookie, Object.entries(parameters)]))
    .digest("base64url");

/**
 * Constant-time check of a posted anti-forgery token: the browser's cookie
 * and the request the form was posted with must be those of the page.
 */
export const formTokenMatches = (
  secret: Uint8Array,
  cookie: string | undefined,
  parameters: Readonly<Record<string, string>>,
  presented: string | undefined,
): boolean => {
  if (cookie === undefined || presented === undefined) return false;
  const expected = Buffer.from(formTokenFor(secret, cookie, parameters), "utf8");
  const actual = Buffer.from(presented, "utf8");
  return expected.byteLength === actual.byteLength && timingSafeEqual(expected, actual);
};

/** Reads the browser's cookie and, if it names a live session of an active user, who is signed in. */
export const identifyBrowser = async (ctx: Context, services: AppServices): Promise<Browser> => {
  const cookie = readCookie(ctx, cookieSettings(ctx, services).name);
  if (cookie === undefined) return { cookie, user: undefined };
  const row = await findLiveSession(services.db, hashSecret(cookie), services.clock.now());
  return {
    cookie,
    user:
      row === undefined
        ? undefined
        : { sessionId: row.id, userId: row.user_id, companyId: row.company_id, email: row.email },
  };
};

/** The browser's cookie, setting a new one on a browser that has none: forms need it before sign-in. */
export const bindBrowser = (ctx: Context, services: AppServices, browser: Browser): string => {
  if (browser.cookie !== undefined) return browser.cookie;
  const cookie = newCookieValue();
  writeCookie(ctx, services, cookie);
  return cookie;
};

const revokeSession = async (services: AppServices, browser: Browser): Promise<void> => {
  if (browser.user === undefined) return;
  await revokeLoginSession(services.db, browser.user.sessionId, services.clock.now());
};

/** Signs `user` in: ends any session the browser had and sets a new cookie naming a new session. */
export const startSession = async (
  ctx: Context,
  services: AppServices,
  browser: Browser,
  user: { readonly id: number; readonly companyId: number },
): Promise<void> => {
  await revokeSession(services, browser);
  const cookie = newCookieValue();
  const now = services.clock.now();
  await insertLoginSession(services.db, {
    companyId: user.companyId,
    userId: user.id,
    tokenHash: hashSecret(cookie),
    now,
    expiresAt: new Date(now.getTime() + SESSION_SECONDS * 1000),
  });
  writeCookie(ctx, services, cookie);
};

/** Signs the browser out: the session row is revoked and the cookie replaced by an anonymous one. */
export const endSession = async (ctx: Context, services: AppServices, browser: Browser): Promise<void> => {
  await revokeSession(services, browser);
  writeCookie(ctx, services, newCookieValue());
};
