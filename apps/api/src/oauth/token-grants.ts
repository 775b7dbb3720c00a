/**
 * The grants the token endpoint serves, keyed by `grant_type`: the one list
 * the endpoint dispatches on and the metadata's `grant_types_supported`
 * reads (docs/decisions/0207).
 */
import type { TokenRequest } from "@dc/contract";
import type { OauthClient } from "@dc/db";
import type { AppServices } from "../services.ts";
import { redeemAuthorizationCode } from "./authorization-codes.ts";
import { clientCredentialsTokens } from "./client-credentials.ts";
import type { IssuedTokens } from "./issue-tokens.ts";
import { refreshTokens } from "./refresh-tokens.ts";

type TokenGrant = (
  services: AppServices,
  client: OauthClient,
  fields: typeof TokenRequest.Type,
) => Promise<IssuedTokens>;

const tokenGrants = {
  authorization_code: (services, client, fields) =>
    redeemAuthorizationCode(services, client, {
      code: fields.code,
      redirectUri: fields.redirect_uri,
      codeVerifier: fields.code_verifier,
    }),
  client_credentials: (services, client, fields) => clientCredentialsTokens(services, client, fields.scope),
  refresh_token: (services, client, fields) =>
    refreshTokens(services, client, { refreshToken: fields.refresh_token, scope: fields.scope }),
} as const satisfies Readonly<Record<string, TokenGrant>>;

export type GrantType = keyof typeof tokenGrants;

export const grantTypes = Object.keys(tokenGrants) as ReadonlyArray<GrantType>;

/** The grant of a `grant_type` value, or undefined for one the endpoint does not serve. */
export const tokenGrant = (grantType: string): TokenGrant | undefined =>
  Object.hasOwn(tokenGrants, grantType) ? tokenGrants[grantType as GrantType] : undefined;
