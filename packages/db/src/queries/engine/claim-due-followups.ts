/**
 * Claims due engine followups for a send transaction (docs/decisions/0600,
 * 0603): the earliest `scheduled` ones whose time has come, read through the
 * partial due indexes, locked `for update skip locked`, then their debts
 * and enrollments `for share skip locked`. Two sweeps never claim the same
 * followup and never wait for each other; a debt or enrollment another
 * transaction is changing (a payment, a pause) is skipped this round, so the
 * claim never waits behind it and the change is seen by the next round.
 *
 * The live sweep reads `followups_live_due_idx` across companies by design:
 * its cost is the due rows, not the companies or the waiting debts. A
 * sandbox company's followups are claimed on its own clock only, through
 * `followups_sandbox_due_idx`.
 */
import { sql } from "kysely";
import { integerArray } from "../array-literals.ts";
import type { DbTransaction } from "../executor.ts";

export interface ClaimedFollowup {
  readonly companyId: number;
  readonly followupId: number;
}

export type ClaimScope =
  /** Live companies' followups due at `now` (the injected clock). */
  | { readonly kind: "live"; readonly now: Date }
  /** One sandbox company's followups due at its own clock. */
  | { readonly kind: "sandbox"; readonly companyId: number };

/** Claims at most `limit` due followups of `scope`, earliest first. */
export const claimDueFollowups = async (
  trx: DbTransaction,
  scope: ClaimScope,
  limit: number,
): Promise<ReadonlyArray<ClaimedFollowup>> => {
  // The followups first, by the due index alone, then their debts and enrollments by primary key: a
  // join in the claim let the planner, on young statistics, scan a company's debts once per followup.
  const { rows: due } =
    scope.kind === "live"
      ? await sql<{ company_id: number; id: number; debt_id: number; enrollment_id: number }>`
          select f.company_id, f.id, f.debt_id, f.enrollment_id
          from followups f
          where f.status = 'scheduled' and f.enrollment_id is not null and not f.sandbox
            and f.scheduled_at <= ${scope.now.toISOString()}::timestamptz
          order by f.scheduled_at, f.id
          limit ${limit}
          for update skip locked`.execute(trx)
      : await sql<{ company_id: number; id: number; debt_id: number; enrollment_id: number }>`
          select f.company_id, f.id, f.debt_id, f.enrollment_id
          from followups f
          where f.company_id = ${scope.companyId} and f.status = 'scheduled' and f.enrollment_id is not null and f.sandbox
            and f.scheduled_at <= (select c.sandbox_now from companies c where c.id = ${scope.companyId} and c.sandbox)
          order by f.scheduled_at, f.id
          limit ${limit}
          for update skip locked`.execute(trx);
  if (due.length === 0) return [];
  const { rows: locked } = await sql<{ kind: "d" | "e"; company_id: number; id: number }>`
    with keys as (
      select * from unnest(
        ${integerArray(due.map((row) => row.company_id))}::int8[],
        ${integerArray(due.map((row) => row.debt_id))}::int8[],
        ${integerArray(due.map((row) => row.enrollment_id))}::int8[]
      ) as k (company_id, debt_id, enrollment_id)
    ),
    debts_locked as (
      select d.company_id, d.id from debts d
      where (d.company_id, d.id) in (select company_id, debt_id from keys)
      for share skip locked
    ),
    enrollments_locked as (
      select e.company_id, e.id from enrollments e
      where (e.company_id, e.id) in (select company_id, enrollment_id from keys)
      for share skip locked
    )
    select 'd' as kind, company_id, id from debts_locked
    union all
    select 'e' as kind, company_id, id from enrollments_locked`.execute(trx);
  const held = new Set(locked.map((row) => `${row.kind}:${row.company_id}:${row.id}`));
  // A followup whose debt or enrollment another transaction is changing stays scheduled for the next round.
  return due
    .filter(
      (row) => held.has(`d:${row.company_id}:${row.debt_id}`) && held.has(`e:${row.company_id}:${row.enrollment_id}`),
    )
    .map((row) => ({ companyId: row.company_id, followupId: row.id }));
};
