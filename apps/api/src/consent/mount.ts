/** Mounts the authorization pages declared in the contract's `pages` on the app's router. */
import { pages } from "@dc/contract";
import type Router from "@koa/router";
import type { AppServices } from "../services.ts";
import { submitAuthorization } from "./authorize-form.ts";
import { showAuthorization } from "./authorize-page.ts";

export const mountAuthorizationPages = (router: Router, services: AppServices): void => {
  router.get(pages.authorize.path, showAuthorization(services));
  router.post(pages.submitAuthorization.path, submitAuthorization(services));
};
