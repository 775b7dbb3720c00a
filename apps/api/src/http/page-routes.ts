/**
 * Mounts the browser-facing operations the contract declares (`pages`) and
 * answers their unexpected failures in one place (docs/decisions/0685). A
 * page that declares the HTML failure pages (`failurePages`) answers a
 * failure its handler did not expect with a page: 503 with `Retry-After`
 * when the database is unavailable, 500 otherwise, neither with anything of
 * the failure; a page that does not (a provider's webhook) lets it reach the
 * request context, which answers the API envelope.
 */
import type { AnyPage } from "@dc/contract";
import type Router from "@koa/router";
import type { Context } from "koa";
import { sendPage } from "../consent/page-response.ts";
import { messagePage } from "../consent/views.ts";
import type { AppServices } from "../services.ts";
import { classifyUnexpected, renderApiError, ServiceUnavailable } from "./api-error.ts";

/**
 * Logs a failure that is answered without reaching the request context, as
 * the request context logs one: a warning when the database is unavailable
 * (it says so itself, and is back within seconds), an error with the request
 * id otherwise. True when the database was unavailable.
 */
export const logFailure = (ctx: Context, services: AppServices, error: unknown, what: string): boolean => {
  const requestId = ctx.state["requestId"];
  const unavailable = classifyUnexpected(error) instanceof ServiceUnavailable;
  if (unavailable) services.logger.warn({ err: error, requestId }, `${what}: database unavailable`);
  else services.logger.error({ err: error, requestId }, what);
  return unavailable;
};

/** The failure page: 503 asking to try again shortly, with the api's `Retry-After`, or 500. */
const sendFailurePage = (ctx: Context, services: AppServices, error: unknown): void => {
  if (logFailure(ctx, services, error, "page failed")) {
    for (const [name, value] of Object.entries(renderApiError(new ServiceUnavailable()).headers ?? {})) ctx.set(name, value);
    sendPage(
      ctx,
      503,
      messagePage({
        title: "Temporarily unavailable",
        message: "The service is briefly unavailable. Please try again in a few seconds.",
      }),
    );
    return;
  }
  sendPage(
    ctx,
    500,
    messagePage({
      title: "Something went wrong",
      message: "The request could not be completed. Please try again in a moment.",
    }),
  );
};

/** Whether the page declares its failures as HTML pages. */
const failsAsPage = (page: AnyPage): boolean =>
  page.responses.some((response) => response.status === 500 && response.html);

/** `/pay/{token}` in Koa's syntax. */
const koaPath = (path: string): string => path.replace(/\{(\w+)\}/g, ":$1");

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- handlers narrow `ctx.params` to their page's own
type PageHandler = (ctx: Context & { params: any }) => Promise<void> | void;

/** Mounts `handler` as `page`'s method and path; a page declaring HTML failures answers them here. */
export const mountPage = (router: Router, services: AppServices, page: AnyPage, handler: PageHandler): void => {
  const guarded: PageHandler = failsAsPage(page)
    ? async (ctx) => {
        try {
          await handler(ctx);
        } catch (error) {
          sendFailurePage(ctx, services, error);
        }
      }
    : handler;
  if (page.method === "get") router.get(koaPath(page.path), guarded);
  else router.post(koaPath(page.path), guarded);
};
