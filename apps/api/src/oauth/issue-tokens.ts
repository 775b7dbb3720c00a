/**
 * Issuing an access token (and, where the grant allows, a refresh token)
 * inside one transaction. Lifetimes: docs/decisions/0201.
 */
import { type Db, insertAccessToken, insertRefreshToken } from "@dc/db";
import { hashSecret, newSecret, secretPrefixes } from "./secrets.ts";

const ACCESS_TOKEN_SECONDS = 3600;
/** A refresh token is single use and expires this long after it was issued. */
const REFRESH_TOKEN_SECONDS = 30 * 24 * 3600;
/** No refresh token of an authorization outlives this, counted from the user's approval. */
export const AUTHORIZATION_MAX_SECONDS = 90 * 24 * 3600;

export interface IssuedTokens {
  readonly access_token: string;
  readonly token_type: "Bearer";
  readonly expires_in: number;
  readonly refresh_token?: string;
  readonly scope: string;
}

export interface IssueRequest {
  readonly companyId: number;
  readonly clientPk: number;
  readonly grantId: number;
  readonly scopes: ReadonlyArray<string>;
  readonly withRefreshToken: boolean;
  /** The refresh token's scopes when they differ from the access token's (a narrowed refresh keeps the original). */
  readonly refreshScopes?: ReadonlyArray<string>;
  /** The authorization's absolute end: the refresh token expires no later. */
  readonly notAfter?: Date;
  readonly now: Date;
}

/** Stores the hashes of new tokens for `grantId` and returns the tokens themselves. */
export const issueTokens = async (
  db: Db,
  request: IssueRequest,
): Promise<IssuedTokens> => {
  const accessToken = newSecret(secretPrefixes.accessToken);
  const at = (seconds: number) => new Date(request.now.getTime() + seconds * 1000);
  const owner = { companyId: request.companyId, clientPk: request.clientPk, grantId: request.grantId, now: request.now };
  await insertAccessToken(db, {
    ...owner,
    tokenHash: hashSecret(accessToken),
    scopes: request.scopes,
    expiresAt: at(ACCESS_TOKEN_SECONDS),
  });
  let refreshToken: string | undefined;
  if (request.withRefreshToken) {
    refreshToken = newSecret(secretPrefixes.refreshToken);
    await insertRefreshToken(db, {
      ...owner,
      tokenHash: hashSecret(refreshToken),
      scopes: request.refreshScopes ?? request.scopes,
      expiresAt: new Date(Math.min(at(REFRESH_TOKEN_SECONDS).getTime(), request.notAfter?.getTime() ?? Infinity)),
    });
  }
  return {
    access_token: accessToken,
    token_type: "Bearer",
    expires_in: ACCESS_TOKEN_SECONDS,
    ...(refreshToken === undefined ? {} : { refresh_token: refreshToken }),
    scope: request.scopes.join(" "),
  };
};
