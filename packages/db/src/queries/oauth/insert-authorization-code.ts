/** Stores the hash of a new authorization code of an approved request. */
import type { Db } from "../executor.ts";

export const insertAuthorizationCode = async (
  db: Db,
  code: {
    readonly companyId: number;
    readonly clientPk: number;
    readonly userId: number;
    readonly codeHash: Buffer;
    readonly redirectUri: string;
    readonly scopes: ReadonlyArray<string>;
    readonly codeChallenge: string | null;
    readonly expiresAt: Date;
    readonly now: Date;
  },
): Promise<void> => {
  await db
    .insertInto("oauth_authorization_codes")
    .values({
      company_id: code.companyId,
      client_pk: code.clientPk,
      user_id: code.userId,
      code_hash: code.codeHash,
      redirect_uri: code.redirectUri,
      scopes: [...code.scopes],
      code_challenge: code.codeChallenge,
      code_challenge_method: code.codeChallenge === null ? null : "S256",
      expires_at: code.expiresAt,
      created_at: code.now,
    })
    .execute();
};
