/**
 * Credit consumption of followups (contract 2.5, docs/decisions/0152): a
 * followup is charged once, when it is first recorded in an executed status,
 * by the domain's cost rule. The balance, the ledger row and the followup's
 * `processed_at`/`credits_charged` change in the caller's transaction.
 */
import { type DbTransaction, debitCredits, insertFollowupCharge } from "@dc/db";
import { Followup } from "@dc/domain";

export interface Charge {
  /** Set when this write is the followup's first execution. */
  readonly processed_at?: Date;
  readonly credits_charged?: number;
}

/**
 * What recording `state` charges, given whether the followup was already
 * processed: nothing unless this is its first executed status.
 */
export const chargeFor = (
  state: {
    readonly status: Followup.FollowupStatus;
    readonly type: Followup.FollowupType;
    readonly durationMs: number | null | undefined;
  },
  alreadyProcessed: boolean,
  now: Date,
): Charge => {
  if (alreadyProcessed || !Followup.isExecuted(state.status)) return {};
  return {
    processed_at: now,
    credits_charged: Followup.chargedCredits({ type: state.type, durationMs: state.durationMs, status: state.status }),
  };
};

/**
 * Writes the ledger row and debits the company (no-op for a free followup).
 * The debit locks the company's row until the transaction ends, and every
 * charge of the company waits for it: callers make this their last statement.
 */
export const recordCharge = async (
  trx: DbTransaction,
  charge: { readonly companyId: number; readonly followupId: number; readonly credits: number; readonly now: Date },
): Promise<void> => {
  if (charge.credits <= 0) return;
  await insertFollowupCharge(trx, charge);
  await debitCredits(trx, charge.companyId, charge.credits);
};
