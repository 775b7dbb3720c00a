/**
 * Postmark's Bounce and Spam Complaint webhook (docs/decisions/0658).
 * Postmark authenticates its webhooks with the HTTP Basic credentials
 * written into the registered URL; they are compared in constant time with
 * `POSTMARK_WEBHOOK_CREDENTIALS` before the body is read. The e-mail is
 * named by the platform's bounce token, sent as the `X-PM-Metadata-dc-bounce`
 * header and returned by Postmark in `Metadata`: a record without a valid
 * one is acknowledged and ignored, so Postmark does not retry it. A hard
 * bounce (`HardBounce`, `BadEmailAddress`, `ManuallyDeactivated`, or any
 * bounce that made Postmark deactivate the address) and a spam complaint
 * mark the address undeliverable; other records change nothing.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { emailTrackingTokens } from "@dc/crypto";
import { EMAIL_WEBHOOK_BODY_BYTES, pages, postmarkWebhookMessages as answers } from "@dc/contract";
import { type EmailBounce, recordEmailBounces } from "@dc/db";
import type Router from "@koa/router";
import type { Context } from "koa";
import { envelope } from "../http/api-error.ts";
import { mountPage } from "../http/page-routes.ts";
import { readRawBody } from "../http/read-body.ts";
import type { AppServices } from "../services.ts";

/** The metadata key of the bounce token (`X-PM-Metadata-dc-bounce`). */
export const POSTMARK_BOUNCE_METADATA = "dc-bounce";

const hardBounceTypes: ReadonlySet<string> = new Set(["HardBounce", "BadEmailAddress", "ManuallyDeactivated"]);

const digest = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest();

/** Whether the request carries exactly the configured `user:password` (constant time, any length). */
const authorized = (header: string | undefined, credentials: string): boolean => {
  const match = /^Basic ([A-Za-z0-9+/]+=*)$/i.exec(header?.trim() ?? "");
  if (match === null) return false;
  return timingSafeEqual(digest(Buffer.from(match[1]!, "base64").toString("utf8")), digest(credentials));
};

/** Answers in the API's envelopes (the contract's `receivePostmarkWebhook`). */
const reply = (ctx: Context, status: number, message: string): void => {
  ctx.status = status;
  ctx.body = status >= 400 ? envelope(status, message) : { error: false, message };
};

const text = (value: unknown): string | undefined => (typeof value === "string" && value.trim() !== "" ? value.trim() : undefined);

/** The bounce a Postmark record reports, or undefined for a record that marks nothing. */
export const bounceOfPostmarkRecord = (
  record: Readonly<Record<string, unknown>>,
  verify: (token: string) => { readonly companyId: number; readonly followupId: number } | undefined,
): EmailBounce | undefined => {
  const address = text(record["Email"]);
  const metadata = record["Metadata"];
  const token = typeof metadata === "object" && metadata !== null ? text((metadata as Record<string, unknown>)[POSTMARK_BOUNCE_METADATA]) : undefined;
  const email = token === undefined ? undefined : verify(token);
  if (address === undefined || email === undefined) return undefined;
  const type = text(record["Type"]) ?? "";
  const complaint = record["RecordType"] === "SpamComplaint" || type === "SpamComplaint";
  const hard = record["RecordType"] === "Bounce" && (hardBounceTypes.has(type) || record["Inactive"] === true);
  if (!complaint && !hard) return undefined;
  const detail = [type, text(record["Description"]), text(record["Details"])].filter((part) => part !== undefined && part !== "").join(": ");
  return {
    companyId: email.companyId,
    followupId: email.followupId,
    address,
    kind: complaint ? "complaint" : "bounce",
    source: "postmark",
    detail: detail.slice(0, 1000),
  };
};

export const mountPostmarkWebhook = (router: Router, services: AppServices): void => {
  const tokens = emailTrackingTokens(services.config.idEncryptionKey);
  mountPage(router, services, pages.receivePostmarkWebhook, async (ctx) => {
    const credentials = services.config.postmarkWebhookCredentials;
    if (credentials === undefined) return reply(ctx, 404, answers.disabled);
    if (!authorized(ctx.get("authorization"), credentials)) {
      ctx.set("WWW-Authenticate", 'Basic realm="email-webhooks"');
      return reply(ctx, 401, answers.invalidCredentials);
    }
    // A body over the limit is the API's 413 envelope, from the error middleware.
    const raw = await readRawBody(ctx.req, EMAIL_WEBHOOK_BODY_BYTES);
    let record: unknown;
    try {
      record = JSON.parse(raw.toString("utf8"));
    } catch {
      record = undefined;
    }
    if (typeof record !== "object" || record === null || Array.isArray(record)) {
      return reply(ctx, 400, answers.notObject);
    }
    const bounce = bounceOfPostmarkRecord(record as Record<string, unknown>, (token) => tokens.verify("bounce", token));
    const recorded = bounce === undefined ? undefined : await recordEmailBounces(services.db, [bounce], services.clock.now());
    reply(ctx, 200, recorded === undefined ? answers.ignored : answers.recorded);
  });
};
