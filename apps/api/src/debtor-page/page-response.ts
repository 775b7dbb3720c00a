/**
 * The debtor page's response headers: a CSP without scripts, with only our
 * stylesheet, our images and our own forms (and the payment provider's
 * checkout, which a pay form's redirect leads to), no framing, no referrer,
 * no caching.
 */
import type { Context } from "koa";
import type { AppServices } from "../services.ts";
import { stylesheetHash } from "./views.ts";

const setHeaders = (ctx: Context, services: AppServices) => {
  const provider = services.config.stripe === undefined ? "" : ` ${services.config.stripe.baseUrl} https://checkout.stripe.com`;
  ctx.set(
    "Content-Security-Policy",
    [
      "default-src 'none'",
      "script-src 'none'",
      `style-src ${stylesheetHash}`,
      "img-src 'self'",
      `form-action 'self'${provider}`,
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join("; "),
  );
  ctx.set("X-Frame-Options", "DENY");
  ctx.set("X-Content-Type-Options", "nosniff");
  ctx.set("Referrer-Policy", "no-referrer");
  ctx.set("Cache-Control", "no-store");
};

export const sendDebtorPage = (ctx: Context, services: AppServices, status: number, html: string): void => {
  setHeaders(ctx, services);
  ctx.status = status;
  ctx.type = "text/html; charset=utf-8";
  ctx.body = html;
};

/** 303 after a form post. */
export const sendSeeOther = (ctx: Context, services: AppServices, location: string): void => {
  setHeaders(ctx, services);
  ctx.status = 303;
  ctx.set("Location", location);
  ctx.body = "";
};
