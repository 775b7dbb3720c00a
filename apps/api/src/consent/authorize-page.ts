/**
 * GET /oauth/authorize: checks the authorization request, then shows the
 * sign-in page, or the consent page to a signed-in user of the client's
 * company. Problems before the client and its redirect URI are established
 * are error pages; later ones are redirected to the client (302).
 */
import { AuthorizationRequest } from "@dc/contract";
import { Schema } from "effect";
import type { Context } from "koa";
import { parseForm } from "../http/read-body.ts";
import { checkAuthorizationRequest } from "../oauth/authorization-request.ts";
import type { AppServices } from "../services.ts";
import { bindBrowser, identifyBrowser } from "./browser-session.ts";
import { showFlowPage, validOrAnswer } from "./flow.ts";

const decodeQuery = Schema.decodeUnknownSync(AuthorizationRequest, { onExcessProperty: "ignore" });

export const showAuthorization =
  (services: AppServices) =>
  async (ctx: Context): Promise<void> => {
    const { fields, repeated } = parseForm(Buffer.from(ctx.querystring, "utf8"));
    const check = await checkAuthorizationRequest(services, decodeQuery(fields), repeated);
    const authorization = validOrAnswer(ctx, services, check, 302);
    if (authorization === undefined) return;
    const browser = await identifyBrowser(ctx, services);
    await showFlowPage(ctx, services, authorization, browser, bindBrowser(ctx, services, browser));
  };
