/** Whether a code exists, by its hash, and the grant made from it (null before its redemption). */
import type { Db } from "../executor.ts";

export const findAuthorizationCodeGrant = (db: Db, codeHash: Buffer) =>
  db.selectFrom("oauth_authorization_codes").select("grant_id").where("code_hash", "=", codeHash).executeTakeFirst();
