/**
 * Claims due engine followups for a send transaction (docs/decisions/0600,
 * 0603): the earliest `scheduled` ones whose time has come, read through the
 * partial due indexes, locked `for update skip locked` together with their
 * debt and enrollment (`for share`). Two sweeps never claim the same
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
  const { rows } =
    scope.kind === "live"
      ? await sql<{ company_id: number; id: number }>`
          select f.company_id, f.id
          from followups f
          join enrollments e on e.company_id = f.company_id and e.id = f.enrollment_id
          join debts d on d.company_id = f.company_id and d.id = f.debt_id
          where f.status = 'scheduled' and f.enrollment_id is not null and not f.sandbox
            and f.scheduled_at <= ${scope.now.toISOString()}::timestamptz
          order by f.scheduled_at, f.id
          limit ${limit}
          for update of f skip locked
          for share of e, d skip locked`.execute(trx)
      : await sql<{ company_id: number; id: number }>`
          select f.company_id, f.id
          from companies c
          join followups f on f.company_id = c.id
          join enrollments e on e.company_id = f.company_id and e.id = f.enrollment_id
          join debts d on d.company_id = f.company_id and d.id = f.debt_id
          where c.id = ${scope.companyId} and c.sandbox
            and f.status = 'scheduled' and f.enrollment_id is not null and f.sandbox
            and f.scheduled_at <= c.sandbox_now
          order by f.scheduled_at, f.id
          limit ${limit}
          for update of f skip locked
          for share of e, d skip locked`.execute(trx);
  return rows.map((row) => ({ companyId: row.company_id, followupId: row.id }));
};
