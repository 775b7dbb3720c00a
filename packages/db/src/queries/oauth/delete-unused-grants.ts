/**
 * Deletes the given grants of a company that no access token, refresh
 * token or authorization code references any more, and returns how many
 * went. Checked here, since a token may have been issued from a grant after
 * the read that listed it.
 */
import { sql } from "kysely";
import type { Db } from "../executor.ts";

export const deleteUnusedGrants = async (
  db: Db,
  companyId: number,
  grantIds: ReadonlyArray<string>,
): Promise<number> =>
  grantIds.length === 0
    ? 0
    : Number(
        (
          await sql`delete from oauth_grants g
            where g.company_id = ${companyId} and g.id = any (${grantIds}::int8[])
              and not exists (select 1 from oauth_access_tokens t where t.company_id = g.company_id and t.grant_id = g.id)
              and not exists (select 1 from oauth_refresh_tokens t where t.company_id = g.company_id and t.grant_id = g.id)
              and not exists (select 1 from oauth_authorization_codes c where c.company_id = g.company_id and c.grant_id = g.id)`.execute(
            db,
          )
        ).numAffectedRows ?? 0n,
      );
