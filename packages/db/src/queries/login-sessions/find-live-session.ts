/**
 * The consent-page login session of a cookie (by its hash) that is neither
 * revoked nor expired at `now`, with its user's e-mail, or undefined; a
 * disabled user, or one moved to another company, has no session.
 */
import { sql } from "kysely";
import type { Db } from "../executor.ts";

export const findLiveSession = (db: Db, tokenHash: Buffer, now: Date) =>
  db
    .selectFrom("oauth_login_sessions as s")
    .innerJoin("users as u", "u.id", "s.user_id")
    .select(["s.id", "s.user_id", "s.company_id", "u.email"])
    .where("s.token_hash", "=", tokenHash)
    .where("s.revoked_at", "is", null)
    .where("s.expires_at", ">", sql<Date>`${now}::timestamptz`)
    .where("u.disabled_at", "is", null)
    .whereRef("u.company_id", "=", "s.company_id")
    .executeTakeFirst();
