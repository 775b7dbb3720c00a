/** Records a grant (one authorization of a client) and returns its id. */
import type { Db } from "../executor.ts";

export const insertGrant = async (
  db: Db,
  grant: {
    readonly companyId: number;
    readonly clientPk: number;
    /** The approving user (authorization_code grants). */
    readonly userId?: number;
    readonly grantType: "client_credentials" | "authorization_code";
    readonly scopes: ReadonlyArray<string>;
    readonly now: Date;
  },
): Promise<number> =>
  (
    await db
      .insertInto("oauth_grants")
      .values({
        company_id: grant.companyId,
        client_pk: grant.clientPk,
        ...(grant.userId === undefined ? {} : { user_id: grant.userId }),
        grant_type: grant.grantType,
        scopes: [...grant.scopes],
        created_at: grant.now,
      })
      .returning("id")
      .executeTakeFirstOrThrow()
  ).id;
