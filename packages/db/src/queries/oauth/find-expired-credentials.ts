/**
 * What each company has to purge, by id, read once across companies without
 * locking anything: access and refresh tokens and authorization codes that
 * expired before `cutoff`, consent-page login sessions past their absolute
 * expiry (`now`), and grants created before `cutoff` with no token or code
 * expiring at or after it. One row per company, in company order.
 */
import { sql } from "kysely";
import type { Db } from "../executor.ts";

export interface CompanyExpiredCredentials {
  readonly company_id: number;
  readonly access: ReadonlyArray<string>;
  readonly refresh: ReadonlyArray<string>;
  readonly codes: ReadonlyArray<string>;
  readonly sessions: ReadonlyArray<string>;
  /** Grants older than the cutoff whose tokens and codes are all expired (or gone). */
  readonly grants: ReadonlyArray<string>;
}

const noIds = sql`'{}'::int8[]`;

/** The ids of the `kind` rows among `expired`, as an int8[] (empty when none). */
const idsOf = (kind: string) => sql`coalesce(array_agg(id) filter (where kind = ${kind}), ${noIds})`;

export const findExpiredCredentials = async (
  db: Db,
  expiry: { readonly cutoff: Date; readonly now: Date },
): Promise<CompanyExpiredCredentials[]> => {
  const cutoff = sql`${expiry.cutoff.toISOString()}::timestamptz`;
  const at = sql`${expiry.now.toISOString()}::timestamptz`;
  const live = (table: string) => sql`
    not exists (select 1 from ${sql.table(table)} t
      where t.company_id = g.company_id and t.grant_id = g.id and t.expires_at >= ${cutoff})`;
  const { rows } = await sql<CompanyExpiredCredentials>`
    select company_id, ${idsOf("access")} as access, ${idsOf("refresh")} as refresh, ${idsOf("code")} as codes,
      ${idsOf("session")} as sessions, ${idsOf("grant")} as grants
    from (
      select company_id, id, 'access' as kind from oauth_access_tokens where expires_at < ${cutoff}
      union all select company_id, id, 'refresh' from oauth_refresh_tokens where expires_at < ${cutoff}
      union all select company_id, id, 'code' from oauth_authorization_codes where expires_at < ${cutoff}
      union all select company_id, id, 'session' from oauth_login_sessions where expires_at < ${at}
      union all select company_id, id, 'grant' from oauth_grants g
        where g.created_at < ${cutoff} and ${live("oauth_access_tokens")} and ${live("oauth_refresh_tokens")}
          and ${live("oauth_authorization_codes")}
    ) as expired
    group by company_id
    order by company_id
  `.execute(db);
  return rows;
};
