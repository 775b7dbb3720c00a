/**
 * Sending the debtor page and its redirects under its policy
 * (../http/page-response.ts): nothing by default, no scripts, our stylesheet
 * and images, and forms to our origin or the payment provider's checkout,
 * which a pay form's redirect leads to.
 */
import type { Context } from "koa";
import { type PagePolicy, sendHtmlPage, sendPageRedirect } from "../http/page-response.ts";
import type { AppServices } from "../services.ts";
import { stylesheetHash } from "./views.ts";

const debtorPagePolicy = (services: AppServices): PagePolicy => ({
  defaultSrc: "'none'",
  styleSrc: stylesheetHash,
  imgSrc: "'self'",
  formTargets: services.config.stripe === undefined ? "" : ` ${services.config.stripe.baseUrl} https://checkout.stripe.com`,
});

export const sendDebtorPage = (ctx: Context, services: AppServices, status: number, html: string): void =>
  sendHtmlPage(ctx, debtorPagePolicy(services), status, html);

/** 303 after a form post. */
export const sendSeeOther = (ctx: Context, services: AppServices, location: string): void =>
  sendPageRedirect(ctx, debtorPagePolicy(services), 303, location);
