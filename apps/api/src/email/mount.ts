/** Mounts the public routes of collection e-mails declared in the contract's `pages` (docs/channels.md, E-mail). */
import type Router from "@koa/router";
import type { AppServices } from "../services.ts";
import { mountPostmarkWebhook } from "./postmark-webhook.ts";
import { mountEmailTracking } from "./tracking-routes.ts";

export const mountEmailRoutes = (router: Router, services: AppServices): void => {
  mountEmailTracking(router, services);
  mountPostmarkWebhook(router, services);
};
