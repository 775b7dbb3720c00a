/**
 * The HTTP contract: every operation's declaration, keyed by operationId.
 * Depends on effect and the domain only (never on Koa or the database).
 */
import * as company from "./endpoints/company.ts";
import * as oauth from "./endpoints/oauth.ts";

export const endpoints = {
  issueToken: oauth.issueToken,
  issueTokenAlias: oauth.issueTokenAlias,
  getCompanyProfile: company.getCompanyProfile,
} as const;

export type Endpoints = typeof endpoints;
export type OperationId = keyof Endpoints;

export * from "./endpoint.ts";
export * from "./envelopes.ts";
export * from "./errors.ts";
export * from "./formats.ts";
export * from "./pagination.ts";
export * from "./rate-limits.ts";
export * from "./scopes.ts";
export { CompanyProfile } from "./endpoints/company.ts";
export { TokenRequest, TokenResponse } from "./endpoints/oauth.ts";
export { buildOpenApiDocument } from "./openapi.ts";
