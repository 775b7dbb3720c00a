/**
 * The origin every absolute URL the api sends starts from: followups' media
 * links, the getting-started page's examples, and the OAuth issuer with its
 * endpoints in the metadata and the `iss` of authorization responses
 * (docs/decisions/0153, 0207). `PUBLIC_BASE_URL`, which production requires;
 * in development and tests without it, the scheme and host the request
 * named, since the URLs go back to that client.
 */
import type { Context } from "koa";
import type { AppServices } from "../services.ts";

export const publicBaseUrl = (services: AppServices, ctx: Context): string =>
  services.config.publicBaseUrl ?? `${ctx.protocol}://${ctx.host}`;
