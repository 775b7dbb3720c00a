/**
 * What the GET page and the form post share: answering an authorization
 * request that failed its checks, and rendering the page for a browser's
 * state. Unexpected failures are answered where every page is mounted
 * (http/page-routes.ts).
 */
import { findCompanyName } from "@dc/db";
import type { Context } from "koa";
import { type AuthorizationCheck, redirectWith, type ValidAuthorization } from "../oauth/authorization-request.ts";
import { issuerOf } from "../oauth/issuer.ts";
import type { AppServices } from "../services.ts";
import { type Browser, formTokenFor } from "./browser-session.ts";
import { sendPage, sendRedirect } from "./page-response.ts";
import { consentPage, messagePage, signInPage, wrongAccountPage } from "./views.ts";

/** The authorization endpoint's URL for a request, to come back to after a post. */
export const authorizeUrl = (parameters: Readonly<Record<string, string>>): string =>
  `/oauth/authorize?${new URLSearchParams(parameters).toString()}`;

/**
 * Answers a request that failed its checks (an error page, or a redirect to
 * the client) and returns undefined; returns the authorization when valid.
 */
export const validOrAnswer = (
  ctx: Context,
  services: AppServices,
  check: AuthorizationCheck,
  redirectStatus: 302 | 303,
): ValidAuthorization | undefined => {
  if (check.kind === "error-page") {
    sendPage(
      ctx,
      400,
      messagePage({
        title: "This authorization request can't be completed",
        message: `${check.description} Return to the application and try again; if this keeps happening, contact its developer.`,
        errorCode: check.error,
      }),
    );
    return undefined;
  }
  if (check.kind === "redirect-error") {
    sendRedirect(
      ctx,
      redirectStatus,
      redirectWith(check.redirectUri, issuerOf(services, ctx), {
        error: check.error,
        error_description: check.description,
        state: check.state,
      }),
    );
    return undefined;
  }
  return check.authorization;
};

/** The page for a browser: sign-in when nobody is signed in, consent for a user of the client's company. */
export const showFlowPage = async (
  ctx: Context,
  services: AppServices,
  authorization: ValidAuthorization,
  browser: Browser,
  cookie: string,
  signInState: { readonly status: number; readonly email?: string | undefined; readonly error?: string | undefined } = {
    status: 200,
  },
): Promise<void> => {
  const form = {
    parameters: authorization.parameters,
    csrfToken: formTokenFor(services.config.idEncryptionKey, cookie, authorization.parameters),
  };
  const { client, redirectUri } = authorization;
  const user = browser.user;
  if (user === undefined) {
    const html = signInPage({ clientName: client.name, form, email: signInState.email, error: signInState.error });
    sendPage(ctx, signInState.status, html, redirectUri);
    return;
  }
  if (user.companyId !== client.company_id) {
    sendPage(ctx, 403, wrongAccountPage({ clientName: client.name, email: user.email, form }), redirectUri);
    return;
  }
  const companyName = await findCompanyName(services.db, client.company_id);
  const html = consentPage({
    clientName: client.name,
    companyName,
    email: user.email,
    scopes: authorization.scopes,
    redirectUri,
    form,
  });
  sendPage(ctx, 200, html, redirectUri);
};
