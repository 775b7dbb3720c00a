/** Stores the hash of a new access token of a grant. */
import type { Db } from "../executor.ts";

export interface NewToken {
  readonly companyId: number;
  readonly clientPk: number;
  readonly grantId: number;
  readonly tokenHash: Buffer;
  readonly scopes: ReadonlyArray<string>;
  readonly expiresAt: Date;
  readonly now: Date;
}

export const insertAccessToken = async (db: Db, token: NewToken): Promise<void> => {
  await db
    .insertInto("oauth_access_tokens")
    .values({
      company_id: token.companyId,
      client_pk: token.clientPk,
      grant_id: token.grantId,
      token_hash: token.tokenHash,
      scopes: [...token.scopes],
      expires_at: token.expiresAt,
      created_at: token.now,
    })
    .execute();
};
