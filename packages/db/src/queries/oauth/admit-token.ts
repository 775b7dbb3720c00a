/**
 * Resolves a bearer token to its principal and, for a rate-limited
 * operation, advances the company's counter by `counter.admitted`, in one
 * prepared statement (docs/decisions/0012). A token that is unknown,
 * expired or revoked (itself, its client or its grant) gives undefined. A
 * token without `scope` is returned uncounted (`counter_key` null): a
 * request refused for its scope does not use the budget.
 */
import { sql } from "kysely";
import { PREPARED } from "../../connection.ts";
import type { Db } from "../executor.ts";

export interface AdmissionRow {
  company_id: string | number;
  client_pk: string | number;
  grant_id: string | number;
  scopes: string[];
  counter_key: string | null;
  count: number | null;
}

export interface AdmissionCounter {
  /** The operation's counter (its rate-limit class or its own name). */
  readonly subject: string;
  readonly windowStart: Date;
  readonly windowEnd: Date;
  /** How many requests this statement admits at once. */
  readonly admitted: number;
}

export const admitToken = async (
  db: Db,
  request: {
    readonly tokenHash: Buffer;
    readonly scope: string;
    readonly now: Date;
    readonly counter?: AdmissionCounter;
  },
): Promise<AdmissionRow | undefined> => {
  const { counter } = request;
  const principal = sql`
    select t.company_id, t.client_pk, t.grant_id, t.scopes
    from oauth_access_tokens t
    join oauth_clients c on c.id = t.client_pk
    join oauth_grants g on g.id = t.grant_id
    where t.token_hash = ${request.tokenHash}
      and t.revoked_at is null and c.revoked_at is null and g.revoked_at is null
      and t.expires_at > ${request.now.toISOString()}::timestamptz`;
  const statement =
    counter === undefined
      ? sql<AdmissionRow>`${sql.raw(PREPARED)}select p.*, null::text as counter_key, null::int as count from (${principal}) p`
      : sql<AdmissionRow>`${sql.raw(PREPARED)}
    with principal as (${principal}),
    counted as (
      insert into rate_limit_counters (key, window_start, count, expires_at)
      select concat('company:', p.company_id, ':', ${counter.subject}::text),
             ${counter.windowStart.toISOString()}::timestamptz, ${counter.admitted}::int, ${counter.windowEnd.toISOString()}::timestamptz
      from principal p
      where ${request.scope}::text = any(p.scopes)
      on conflict (key, window_start) do update set count = rate_limit_counters.count + excluded.count
      returning key, count
    )
    select p.*, c.key as counter_key, c.count from principal p left join counted c on true`;
  return (await statement.execute(db)).rows[0];
};
