/**
 * Moves claimed engine followups to a new status in one statement: to
 * `in_progress` (with the recipient the send uses) before the provider call,
 * committed first (docs/decisions/0600); to `on_hold` when its enrollment
 * was paused meanwhile; to `cancelled` when it stopped, completed or
 * restarted; back to `scheduled` when a recovered send never reached its
 * provider. `updated_at` is the injected clock: the recovery sweep times an
 * `in_progress` followup from it.
 */
import { sql } from "kysely";
import { integerArray, textArray } from "../array-literals.ts";
import type { DbTransaction } from "../executor.ts";

export interface FollowupState {
  readonly companyId: number;
  readonly followupId: number;
  readonly status: "in_progress" | "on_hold" | "cancelled" | "scheduled";
  /** Kept when null. */
  readonly recipient: string | null;
  /** A new `scheduled_at`; kept when null. */
  readonly scheduledAt: Date | null;
}

export const setFollowupStates = async (
  trx: DbTransaction,
  states: ReadonlyArray<FollowupState>,
  now: Date,
): Promise<void> => {
  if (states.length === 0) return;
  await sql`
    update followups f
    set status = i.status, recipient = coalesce(i.recipient, f.recipient), scheduled_at = coalesce(i.scheduled_at, f.scheduled_at),
      updated_at = ${now.toISOString()}::timestamptz
    from unnest(
      ${integerArray(states.map((s) => s.companyId))}::int8[],
      ${integerArray(states.map((s) => s.followupId))}::int8[],
      ${textArray(states.map((s) => s.status))}::text[],
      ${textArray(states.map((s) => s.recipient))}::text[],
      ${textArray(states.map((s) => (s.scheduledAt === null ? null : s.scheduledAt.toISOString())))}::timestamptz[]
    ) as i (company_id, followup_id, status, recipient, scheduled_at)
    where f.company_id = i.company_id and f.id = i.followup_id
  `.execute(trx);
};
