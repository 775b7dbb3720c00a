/** Mounts the debtor page and the payment provider's webhook declared in the contract's `pages`. */
import { pages } from "@dc/contract";
import type Router from "@koa/router";
import { mountPage } from "../http/page-routes.ts";
import type { AppServices } from "../services.ts";
import { showDebtorPage, submitDebtorPage } from "./routes.ts";
import { receiveStripeWebhook } from "./stripe-webhook.ts";

export const mountDebtorPages = (router: Router, services: AppServices): void => {
  mountPage(router, services, pages.showDebtorPage, showDebtorPage(services));
  mountPage(router, services, pages.submitDebtorPage, submitDebtorPage(services));
  mountPage(router, services, pages.receiveStripeWebhook, receiveStripeWebhook(services));
};
