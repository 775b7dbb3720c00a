/**
 * The open pixel, the tracked links and the unsubscribe link of collection
 * e-mails (docs/decisions/0655-0657). The signed token (`t`) is checked
 * first, in constant time; only a valid one reaches the database, with one
 * statement. The pixel answers its image whatever happens, and a link
 * still redirects when the count cannot be written: the debtor's way to
 * the payment page never depends on the tracking.
 */
import { emailTrackingTokens, type TrackingPurpose } from "@dc/crypto";
import { EMAIL_FORM_BODY_BYTES, emailTrackingPaths, pages } from "@dc/contract";
import { emailFollowupExists, recordEmailClick, recordEmailOpen, unsubscribeFromEmail } from "@dc/db";
import type Router from "@koa/router";
import type { Context } from "koa";
import { escape, layout } from "../consent/html.ts";
import { sendPage } from "../consent/page-response.ts";
import { PayloadTooLarge } from "../http/api-error.ts";
import { logFailure, mountPage } from "../http/page-routes.ts";
import { readRawBody } from "../http/read-body.ts";
import type { AppServices } from "../services.ts";
import { isAutomatedFetch } from "./prefetchers.ts";

/** A 1x1 transparent GIF (GIF89a, 43 bytes). */
export const PIXEL = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");

const tokenOf = (ctx: Context): string => (typeof ctx.query["t"] === "string" ? ctx.query["t"] : "");

const automated = (ctx: Context): boolean =>
  isAutomatedFetch({ method: ctx.method, userAgent: ctx.get("user-agent") || undefined, address: ctx.ip });

const message = (ctx: Context, status: number, title: string, text: string): void =>
  sendPage(ctx, status, layout(title, `<h1>${escape(title)}</h1>\n    <p class="lead">${escape(text)}</p>`));

const notFound = (ctx: Context): void =>
  message(ctx, 404, "Link not found", "This link is not valid. Nothing was changed.");

/** A target the platform wrote, as a header-safe http(s) URL, or undefined. */
const httpTarget = (target: string | undefined): string | undefined => {
  if (target === undefined || !URL.canParse(target)) return undefined;
  const url = new URL(target);
  return url.protocol === "https:" || url.protocol === "http:" ? url.href : undefined;
};

export const mountEmailTracking = (router: Router, services: AppServices): void => {
  const tokens = emailTrackingTokens(services.config.idEncryptionKey);
  const verify = (purpose: TrackingPurpose, ctx: Context) => tokens.verify(purpose, tokenOf(ctx));
  // The debtor still gets the image or the redirect: the failure is logged, as any request's is, and nothing is counted.
  const bestEffort = (ctx: Context, what: string, write: Promise<unknown>): Promise<unknown> =>
    write.catch((error: unknown) => logFailure(ctx, services, error, `e-mail ${what} not recorded`));

  mountPage(router, services, pages.openEmailPixel, async (ctx) => {
    const email = verify("open", ctx);
    if (email !== undefined) {
      await bestEffort(ctx, "open", recordEmailOpen(services.db, { ...email, at: services.clock.now(), automated: automated(ctx) }));
    }
    ctx.set("Referrer-Policy", "no-referrer");
    ctx.set("Cache-Control", "no-store, max-age=0");
    ctx.status = 200;
    ctx.type = "image/gif";
    ctx.body = PIXEL;
  });

  mountPage(router, services, pages.followEmailLink, async (ctx) => {
    const email = verify("click", ctx);
    const target = httpTarget(email?.target);
    if (email === undefined || target === undefined) return notFound(ctx);
    await bestEffort(ctx, "click", recordEmailClick(services.db, { ...email, at: services.clock.now(), automated: automated(ctx) }));
    ctx.set("Referrer-Policy", "no-referrer");
    ctx.status = 302;
    ctx.set("Location", target);
    ctx.body = "";
  });

  mountPage(router, services, pages.showEmailUnsubscribe, async (ctx) => {
    const email = verify("unsubscribe", ctx);
    if (email === undefined || !(await emailFollowupExists(services.db, email))) return notFound(ctx);
    const action = `${emailTrackingPaths.unsubscribe}?t=${encodeURIComponent(tokenOf(ctx))}`;
    sendPage(
      ctx,
      200,
      layout(
        "Unsubscribe",
        `<h1>Unsubscribe from these e-mails</h1>
    <p class="lead">You will receive no more e-mails about this debt. Other letters or calls may still follow.</p>
    <form method="post" action="${escape(action)}">
      <input type="hidden" name="List-Unsubscribe" value="One-Click">
      <div class="stack"><button class="button primary" type="submit">Unsubscribe</button></div>
    </form>`,
      ),
    );
  });

  mountPage(router, services, pages.unsubscribeFromEmail, async (ctx) => {
    const email = verify("unsubscribe", ctx);
    if (email === undefined) return notFound(ctx);
    try {
      // The body (`List-Unsubscribe=One-Click`) carries nothing the token does not: read to its limit, not used.
      await readRawBody(ctx.req, EMAIL_FORM_BODY_BYTES);
    } catch (error) {
      if (error instanceof PayloadTooLarge) return message(ctx, 413, "Too large", "The request is too large.");
      throw error;
    }
    if (!(await unsubscribeFromEmail(services.db, email, services.clock.now()))) return notFound(ctx);
    message(ctx, 200, "Unsubscribed", "You will receive no more e-mails about this debt.");
  });
};
