/**
 * The debt-list counters of 0002 are spread over 16 rows per (company,
 * creditor, currency, status): each writer adds its deltas to the row of its
 * own shard, `pg_backend_pid() % 16` (docs/decisions/0114).
 *
 * With one row per key, every transaction that writes a creditor's debts
 * holds that creditor's counter row until it commits, so concurrent
 * `POST /debts` of one creditor, and snapshots beside them, run one after
 * the other, mostly waiting on each other's lock.
 * Each connection is one server process, so two transactions contend only
 * when their connections share a shard.
 *
 * Readers already add the rows of a key together (the list totals and the
 * creditor's totals), so a shard's count may go negative (debts created
 * through one connection, deleted through another) while the sum stays
 * exact. Every trigger adds deltas with an upsert, deletions included.
 */
import { type Kysely, sql } from "kysely";
import { counterTriggerFunctions } from "./0002-debt-list-counters.ts";

/** The upsert of aggregated deltas into the writer's shard, shared by the three triggers. */
const addToShard = (deltas: string) => `
  insert into creditor_debt_stats as s
    (company_id, creditor_id, currency, status, shard, debt_count, amount_minor, balance_minor)
  select company_id, creditor_id, currency, status, (pg_backend_pid() % 16)::int2,
    sum(n), sum(amount_minor), sum(balance_minor)
  from (${deltas}) as delta
  group by company_id, creditor_id, currency, status
  having sum(n) <> 0 or sum(amount_minor) <> 0 or sum(balance_minor) <> 0
  order by company_id, creditor_id, currency, status
  on conflict (company_id, creditor_id, currency, status, shard) do update set
    debt_count = s.debt_count + excluded.debt_count,
    amount_minor = s.amount_minor + excluded.amount_minor,
    balance_minor = s.balance_minor + excluded.balance_minor;`;

const added = `select company_id, creditor_id, currency, status, 1 as n, amount_minor, balance_minor from debts_stats_new`;
const removed = `select company_id, creditor_id, currency, status, -1 as n, -amount_minor as amount_minor,
    -balance_minor as balance_minor from debts_stats_old`;

/** The trigger function `name`: adds the `deltas` of its statement's transition tables to the writer's shard. */
const countersTrigger = (name: string, deltas: string) => `
create or replace function ${name}() returns trigger language plpgsql as $$
begin
  ${addToShard(deltas)}
  return null;
end
$$;`;

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
alter table creditor_debt_stats add column shard int2 not null default 0 check (shard between 0 and 15);
alter table creditor_debt_stats drop constraint creditor_debt_stats_pkey;
alter table creditor_debt_stats add primary key (company_id, creditor_id, currency, status, shard);

${sql.raw(countersTrigger("creditor_debt_stats_after_insert", added))}
${sql.raw(countersTrigger("creditor_debt_stats_after_delete", removed))}
${sql.raw(countersTrigger("creditor_debt_stats_after_update", `${added} union all ${removed}`))}
`.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
-- No debt write may add to the counters between the fold and the delete.
lock table debts, creditor_debt_stats in share row exclusive mode;
create temporary table creditor_debt_stats_folded on commit drop as
  select company_id, creditor_id, currency, status, sum(debt_count)::int8 as debt_count,
    sum(amount_minor) as amount_minor, sum(balance_minor) as balance_minor
  from creditor_debt_stats group by company_id, creditor_id, currency, status;
delete from creditor_debt_stats;
alter table creditor_debt_stats drop constraint creditor_debt_stats_pkey;
alter table creditor_debt_stats drop column shard;
alter table creditor_debt_stats add primary key (company_id, creditor_id, currency, status);
insert into creditor_debt_stats (company_id, creditor_id, currency, status, debt_count, amount_minor, balance_minor)
  select company_id, creditor_id, currency, status, debt_count, amount_minor, balance_minor from creditor_debt_stats_folded;

${sql.raw(counterTriggerFunctions)}
`.execute(db);
};
