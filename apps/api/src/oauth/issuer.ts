/**
 * The issuer identifier of this authorization server (RFC 8414 2,
 * docs/decisions/0207): the api's public origin. The metadata names it, and
 * every authorization response carries it as `iss` (RFC 9207), so the two
 * can never differ.
 */
import type { Context } from "koa";
import { publicBaseUrl } from "../http/public-base-url.ts";
import type { AppServices } from "../services.ts";

export const issuerOf = (services: AppServices, ctx: Context): string => publicBaseUrl(services, ctx);
