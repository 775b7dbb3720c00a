/** A grant (it must exist) with whether its user, if any, is disabled: what a refresh checks. */
import type { Db } from "../executor.ts";

export const findGrantUser = (db: Db, grantId: number) =>
  db
    .selectFrom("oauth_grants as g")
    .leftJoin("users as u", "u.id", "g.user_id")
    .select(["g.id", "g.created_at", "g.revoked_at", "g.grant_type", "g.user_id", "u.disabled_at"])
    .where("g.id", "=", grantId)
    .executeTakeFirstOrThrow();
