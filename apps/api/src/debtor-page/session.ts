/**
 * The debtor page's browser state (docs/decisions/0671), kept in two
 * HttpOnly, SameSite=Lax cookies scoped to `/pay/` (Secure over https):
 *
 * - `dc_debtor_browser`: 32 random bytes naming the browser; every form's
 *   anti-forgery token is a MAC of it and of the page's link, so another
 *   site can neither read nor compute a token.
 * - `dc_debtor_session`: set after a passed identity check, for 30 minutes:
 *   `<company>.<debt>.<expiry>.<mac>`, the MAC binding it to the browser
 *   cookie, so a stolen session cookie alone is useless.
 *
 * Both MAC keys derive from `ID_ENCRYPTION_KEY` under their own HKDF info.
 */
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import type { DebtorLinkTarget } from "@dc/crypto";
import type { Context } from "koa";
import type { AppServices } from "../services.ts";

export const SESSION_SECONDS = 30 * 60;
const BROWSER_COOKIE = "dc_debtor_browser";
const SESSION_COOKIE = "dc_debtor_session";
const BROWSER_VALUE = /^[A-Za-z0-9_-]{43}$/;

const keys = new WeakMap<Uint8Array, { readonly session: Buffer; readonly form: Buffer }>();
const keysOf = (secret: Uint8Array) => {
  let found = keys.get(secret);
  if (found === undefined) {
    const derive = (info: string) => Buffer.from(hkdfSync("sha256", secret, "debt-collection/debtor-page", info, 32));
    found = { session: derive("session hmac-sha256 v1"), form: derive("form hmac-sha256 v1") };
    keys.set(secret, found);
  }
  return found;
};

const mac = (key: Buffer, text: string) => createHmac("sha256", key).update(text).digest("base64url");

const same = (a: string, b: string) => {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.byteLength === right.byteLength && timingSafeEqual(left, right);
};

const readCookie = (ctx: Context, name: string): string | undefined => {
  for (const part of (ctx.get("cookie") || "").split(";")) {
    const separator = part.indexOf("=");
    if (separator > 0 && part.slice(0, separator).trim() === name) return part.slice(separator + 1).trim();
  }
  return undefined;
};

const secureOf = (ctx: Context, services: AppServices) =>
  ctx.secure || (services.config.publicBaseUrl?.startsWith("https://") ?? false);

const setCookie = (ctx: Context, services: AppServices, name: string, value: string, maxAge?: number) =>
  ctx.append(
    "Set-Cookie",
    `${name}=${value}; Path=/pay/; ${maxAge === undefined ? "" : `Max-Age=${maxAge}; `}HttpOnly; SameSite=Lax${secureOf(ctx, services) ? "; Secure" : ""}`,
  );

/** The browser's cookie value, set now when it sent none. */
export const browserOf = (ctx: Context, services: AppServices): string => {
  const sent = readCookie(ctx, BROWSER_COOKIE);
  if (sent !== undefined && BROWSER_VALUE.test(sent)) return sent;
  const value = randomBytes(32).toString("base64url");
  setCookie(ctx, services, BROWSER_COOKIE, value);
  return value;
};

/** The anti-forgery token of the forms of `linkToken`'s page shown to `browser`. */
export const formToken = (services: AppServices, browser: string, linkToken: string): string =>
  mac(keysOf(services.config.idEncryptionKey).form, `${browser}\n${linkToken}`);

/** Whether a posted token is this browser's for this page. */
export const formTokenMatches = (services: AppServices, browser: string, linkToken: string, posted: string | undefined) =>
  posted !== undefined && same(formToken(services, browser, linkToken), posted);

const sessionText = (target: DebtorLinkTarget, expires: number) => `${target.companyId}.${target.debtId}.${expires}`;

/** Opens a session on `target` for this browser (after a passed identity check). */
export const startSession = (ctx: Context, services: AppServices, browser: string, target: DebtorLinkTarget): void => {
  const expires = Math.floor(services.clock.now().getTime() / 1000) + SESSION_SECONDS;
  const text = sessionText(target, expires);
  setCookie(ctx, services, SESSION_COOKIE, `${text}.${mac(keysOf(services.config.idEncryptionKey).session, `${browser}\n${text}`)}`, SESSION_SECONDS);
};

/** Whether this browser holds a live session on `target`. */
export const hasSession = (ctx: Context, services: AppServices, browser: string, target: DebtorLinkTarget): boolean => {
  const value = readCookie(ctx, SESSION_COOKIE);
  if (value === undefined) return false;
  const cut = value.lastIndexOf(".");
  const text = value.slice(0, cut);
  const [company, debt, expires] = text.split(".");
  if (cut < 0 || !same(mac(keysOf(services.config.idEncryptionKey).session, `${browser}\n${text}`), value.slice(cut + 1))) return false;
  return (
    Number(company) === target.companyId &&
    Number(debt) === target.debtId &&
    Number(expires) * 1000 > services.clock.now().getTime()
  );
};
