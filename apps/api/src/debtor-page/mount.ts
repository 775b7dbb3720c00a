/** Mounts the debtor page and the payment provider's webhook declared in the contract's `pages`. */
import { pages } from "@dc/contract";
import type Router from "@koa/router";
import type { AppServices } from "../services.ts";
import { showDebtorPage, submitDebtorPage } from "./routes.ts";
import { receiveStripeWebhook } from "./stripe-webhook.ts";

/** `/pay/{token}` in Koa's syntax. */
const koaPath = (path: string) => path.replace(/\{(\w+)\}/g, ":$1");

export const mountDebtorPages = (router: Router, services: AppServices): void => {
  router.get(koaPath(pages.showDebtorPage.path), showDebtorPage(services));
  router.post(koaPath(pages.submitDebtorPage.path), submitDebtorPage(services));
  router.post(pages.receiveStripeWebhook.path, receiveStripeWebhook(services));
};
