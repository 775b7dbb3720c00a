/**
 * POST /oauth/authorize: the sign-in, approve, deny and sign-out buttons of
 * the authorization pages. The authorization request comes back in hidden
 * fields and is checked again in full; every post must carry the
 * anti-forgery token of the browser's cookie and of that very request, so a
 * form whose hidden fields were changed is refused. Redirects are 303, so a
 * browser never re-posts a form (RFC 9700 4.12).
 */
import { AuthorizationForm, OAUTH_FORM_BODY_BYTES } from "@dc/contract";
import { Either, Schema } from "effect";
import type { Context } from "koa";
import { PayloadTooLarge, ValidationFailed } from "../http/api-error.ts";
import { mediaType, parseForm, readRawBody } from "../http/read-body.ts";
import { issueAuthorizationCode } from "../oauth/authorization-codes.ts";
import { checkAuthorizationRequest, redirectWith } from "../oauth/authorization-request.ts";
import { issuerOf } from "../oauth/issuer.ts";
import type { AppServices } from "../services.ts";
import { bindBrowser, endSession, formTokenMatches, identifyBrowser, startSession } from "./browser-session.ts";
import { authorizeUrl, showFlowPage, validOrAnswer } from "./flow.ts";
import { sendPage, sendRedirect } from "./page-response.ts";
import { signIn } from "./sign-in.ts";
import { messagePage } from "./views.ts";

const decodeForm = Schema.decodeUnknownEither(AuthorizationForm, { onExcessProperty: "ignore" });

const refuse = (ctx: Context, status: number, title: string, message: string, restartUrl?: string) =>
  sendPage(ctx, status, messagePage({ title, message, ...(restartUrl === undefined ? {} : { restartUrl }) }));

const readForm = async (ctx: Context) => {
  if (mediaType(ctx.get("content-type")) !== "application/x-www-form-urlencoded") {
    // A body left unread would hold the connection until the client stops sending: close it after the page.
    ctx.set("Connection", "close");
    refuse(ctx, 415, "Unsupported form", "The form must be sent as application/x-www-form-urlencoded.");
    return undefined;
  }
  try {
    return parseForm(await readRawBody(ctx.req, OAUTH_FORM_BODY_BYTES));
  } catch (error) {
    if (error instanceof PayloadTooLarge) {
      ctx.set("Connection", "close");
      refuse(ctx, 413, "Form too large", "The form sent is larger than this page accepts.");
      return undefined;
    }
    // The body ended early (the browser went away or the framing broke): the browser's doing, a 400.
    if (error instanceof ValidationFailed) {
      refuse(ctx, 400, "Incomplete form", "The form arrived incomplete. Go back and send it again.");
      return undefined;
    }
    throw error;
  }
};

export const submitAuthorization =
  (services: AppServices) =>
  async (ctx: Context): Promise<void> => {
    const form = await readForm(ctx);
    if (form === undefined) return;
    const decoded = decodeForm(form.fields);
    const ownRepeated = form.repeated.filter((name) => ["action", "csrf_token", "email", "password"].includes(name));
    if (Either.isLeft(decoded) || ownRepeated.length > 0) {
      refuse(
        ctx,
        400,
        "This form can't be processed",
        "The form is incomplete or malformed. Go back to the application and start again.",
      );
      return;
    }
    const fields = decoded.right;
    const authorization = validOrAnswer(
      ctx,
      services,
      await checkAuthorizationRequest(services, fields, form.repeated),
      303,
    );
    if (authorization === undefined) return;
    const restart = authorizeUrl(authorization.parameters);

    const browser = await identifyBrowser(ctx, services);
    // The token binds the post to this browser and to the request its page showed: hidden fields changed
    // since (a wider scope, another client) fail it, so the decision is always the one displayed.
    if (!formTokenMatches(services.config.idEncryptionKey, browser.cookie, authorization.parameters, fields.csrf_token)) {
      refuse(
        ctx,
        403,
        "This form has expired",
        "For your security the form was refused: it was not sent from this page, or the page is too old. Start again (cookies must be enabled).",
        restart,
      );
      return;
    }
    const { client, redirectUri, state } = authorization;

    switch (fields.action) {
      case "sign_in": {
        const result = await signIn(services, { email: fields.email, password: fields.password, address: ctx.ip });
        const cookie = bindBrowser(ctx, services, browser);
        const signedOut = { cookie, user: undefined };
        if (result.kind === "throttled") {
          ctx.set("Retry-After", String(result.retryAfterSeconds));
          const minutes = Math.ceil(result.retryAfterSeconds / 60);
          const error = `Too many failed sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`;
          await showFlowPage(ctx, services, authorization, signedOut, cookie, {
            status: 429,
            email: fields.email,
            error,
          });
        } else if (result.kind !== "signed-in") {
          const error =
            result.kind === "incomplete" ? "Enter your e-mail and password." : "Incorrect e-mail or password.";
          await showFlowPage(ctx, services, authorization, signedOut, cookie, {
            status: 400,
            email: fields.email,
            error,
          });
        } else if (result.user.companyId !== client.company_id) {
          const error = `This account can't authorize ${client.name}: only users of the company that registered it can.`;
          await showFlowPage(ctx, services, authorization, signedOut, cookie, {
            status: 403,
            email: fields.email,
            error,
          });
        } else {
          await startSession(ctx, services, browser, result.user);
          sendRedirect(ctx, 303, restart);
        }
        return;
      }
      case "approve": {
        const user = browser.user;
        const cookie = bindBrowser(ctx, services, browser);
        if (user === undefined) {
          const error = "Your sign-in has ended. Sign in again to continue.";
          await showFlowPage(ctx, services, authorization, browser, cookie, { status: 400, error });
          return;
        }
        if (user.companyId !== client.company_id) {
          await showFlowPage(ctx, services, authorization, browser, cookie);
          return;
        }
        const code = await issueAuthorizationCode(services, authorization, user.userId);
        sendRedirect(ctx, 303, redirectWith(redirectUri, issuerOf(services, ctx), { code, state }));
        return;
      }
      case "deny":
        sendRedirect(
          ctx,
          303,
          redirectWith(redirectUri, issuerOf(services, ctx), {
            error: "access_denied",
            error_description: "The user denied the request",
            state,
          }),
        );
        return;
      case "sign_out":
        await endSession(ctx, services, browser);
        sendRedirect(ctx, 303, restart);
        return;
    }
  };
