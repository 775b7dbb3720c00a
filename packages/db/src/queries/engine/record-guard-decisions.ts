/**
 * Writes what the compliance guard decided for claimed followups
 * (docs/decisions/0603), one statement for all: a deferral moves the
 * followup's `scheduled_at`, a block cancels it; both set its
 * `guard_reason`/`guard_detail` and add a `followup_decisions` row. A
 * deferral repeating the followup's last reason and detail (a hold re-checked
 * while it lasts) moves the time without a new row: the stored decision
 * still says why it waits.
 */
import { sql } from "kysely";
import { integerArray, textArray } from "../array-literals.ts";
import type { DbTransaction } from "../executor.ts";

export interface GuardDecision {
  readonly companyId: number;
  readonly followupId: number;
  readonly decision: "defer" | "block";
  readonly reason: string;
  readonly detail: string | null;
  /** A deferral's new time; null for a block. */
  readonly until: Date | null;
  /** The company's clock at the decision. */
  readonly decidedAt: Date;
}

/** Records `decisions`; `now` (the injected clock) is the rows' `updated_at`. Returns the decision rows added. */
export const recordGuardDecisions = async (
  trx: DbTransaction,
  decisions: ReadonlyArray<GuardDecision>,
  now: Date,
): Promise<number> => {
  if (decisions.length === 0) return 0;
  const { rows } = await sql<{ recorded: number }>`
    with input as (
      select * from unnest(
        ${integerArray(decisions.map((d) => d.companyId))}::int8[],
        ${integerArray(decisions.map((d) => d.followupId))}::int8[],
        ${textArray(decisions.map((d) => d.decision))}::text[],
        ${textArray(decisions.map((d) => d.reason))}::text[],
        ${textArray(decisions.map((d) => d.detail))}::text[],
        ${textArray(decisions.map((d) => (d.until === null ? null : d.until.toISOString())))}::timestamptz[],
        ${textArray(decisions.map((d) => d.decidedAt.toISOString()))}::timestamptz[]
      ) as i (company_id, followup_id, decision, reason, detail, until, decided_at)
    ),
    previous as (
      select i.*, f.guard_reason is not distinct from i.reason and f.guard_detail is not distinct from i.detail as repeated
      from input i
      join followups f on f.company_id = i.company_id and f.id = i.followup_id
    ),
    updated as (
      update followups f
      set status = case when i.decision = 'block' then 'cancelled' else f.status end,
        scheduled_at = case when i.decision = 'defer' then i.until else f.scheduled_at end,
        guard_reason = i.reason, guard_detail = i.detail, updated_at = ${now.toISOString()}::timestamptz
      from input i
      where f.company_id = i.company_id and f.id = i.followup_id
    ),
    recorded as (
      insert into followup_decisions (company_id, followup_id, decided_at, decision, reason, detail, deferred_until)
      select company_id, followup_id, decided_at, decision, reason, detail, until
      from previous
      where decision = 'block' or not repeated
      returning 1
    )
    select count(*)::int as recorded from recorded
  `.execute(trx);
  return rows[0]?.recorded ?? 0;
};
