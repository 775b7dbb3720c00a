/** Mounts the authorization pages declared in the contract's `pages` on the app's router. */
import { pages } from "@dc/contract";
import type Router from "@koa/router";
import { mountPage } from "../http/page-routes.ts";
import type { AppServices } from "../services.ts";
import { submitAuthorization } from "./authorize-form.ts";
import { showAuthorization } from "./authorize-page.ts";

export const mountAuthorizationPages = (router: Router, services: AppServices): void => {
  mountPage(router, services, pages.authorize, showAuthorization(services));
  mountPage(router, services, pages.submitAuthorization, submitAuthorization(services));
};
