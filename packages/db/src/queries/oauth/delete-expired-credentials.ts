/**
 * Deletes the given rows of a company's credential table that expired
 * before `expiry`, and returns how many went. The expiry is checked again:
 * a row cannot un-expire, but the ids are only what an earlier read saw.
 */
import { sql } from "kysely";
import type { Db } from "../executor.ts";

export type CredentialTable =
  "oauth_access_tokens" | "oauth_refresh_tokens" | "oauth_authorization_codes" | "oauth_login_sessions";

export const deleteExpiredCredentials = async (
  db: Db,
  rows: {
    readonly table: CredentialTable;
    readonly companyId: number;
    readonly ids: ReadonlyArray<string>;
    readonly expiry: Date;
  },
): Promise<number> => {
  if (rows.ids.length === 0) return 0;
  const result = await sql`delete from ${sql.table(rows.table)}
    where company_id = ${rows.companyId} and id = any (${rows.ids}::int8[])
      and expires_at < ${sql`${rows.expiry.toISOString()}::timestamptz`}`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
};
