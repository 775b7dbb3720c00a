/** Issuing an access token (and, where the grant allows, a refresh token) inside one transaction. */
import type { Database } from "@dc/db";
import type { Kysely, Transaction } from "kysely";
import { hashSecret, newSecret, secretPrefixes } from "./secrets.ts";

export const ACCESS_TOKEN_SECONDS = 3600;
export const REFRESH_TOKEN_SECONDS = 30 * 24 * 3600;

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
  readonly now: Date;
}

/** Stores the hashes of new tokens for `grantId` and returns the tokens themselves. */
export const issueTokens = async (db: Kysely<Database> | Transaction<Database>, request: IssueRequest): Promise<IssuedTokens> => {
  const accessToken = newSecret(secretPrefixes.accessToken);
  const at = (seconds: number) => new Date(request.now.getTime() + seconds * 1000);
  await db
    .insertInto("oauth_access_tokens")
    .values({
      company_id: request.companyId,
      client_pk: request.clientPk,
      grant_id: request.grantId,
      token_hash: hashSecret(accessToken),
      scopes: [...request.scopes],
      expires_at: at(ACCESS_TOKEN_SECONDS),
      created_at: request.now,
    })
    .execute();
  let refreshToken: string | undefined;
  if (request.withRefreshToken) {
    refreshToken = newSecret(secretPrefixes.refreshToken);
    await db
      .insertInto("oauth_refresh_tokens")
      .values({
        company_id: request.companyId,
        client_pk: request.clientPk,
        grant_id: request.grantId,
        token_hash: hashSecret(refreshToken),
        scopes: [...request.scopes],
        expires_at: at(REFRESH_TOKEN_SECONDS),
        created_at: request.now,
      })
      .execute();
  }
  return {
    access_token: accessToken,
    token_type: "Bearer",
    expires_in: ACCESS_TOKEN_SECONDS,
    ...(refreshToken === undefined ? {} : { refresh_token: refreshToken }),
    scope: request.scopes.join(" "),
  };
};
