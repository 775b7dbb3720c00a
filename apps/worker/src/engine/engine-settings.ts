/**
 * The engine's operating constants (docs/decisions/0602 to 0605): how many
 * followups one send transaction takes, how long a send may stay
 * `in_progress` before the recovery asks its provider, how soon an open
 * hold is looked at again, how long a promise to pay pauses a debt when
 * the outcome names no date, and how late an installment may be before the
 * plan stops holding the debt. Tests and benchmarks pass their own.
 */

export interface EngineSettings {
  /** Followups claimed, decided and sent per transaction. */
  readonly batchSize: number;
  /** A followup `in_progress` longer than this (injected clock) is reconciled through its adapter's `lookup`. */
  readonly sendTimeoutMs: number;
  /** When the guard defers "until something changes" (an open hold, no credits), the followup is looked at again this much later. */
  readonly recheckMs: number;
  /** A `deal_found` outcome without `promiseUntil` pauses the enrollment this long. */
  readonly defaultPromiseDays: number;
  /** An active plan stops holding the debt when its earliest pending installment is this many days late. */
  readonly installmentGraceDays: number;
  /** Longest a sweep job runs before it hands over to its next run (other jobs get the slot meanwhile). */
  readonly sweepBudgetMs: number;
  /** Latest a live sweep waits before it looks again when nothing is due. */
  readonly idleSweepMs: number;
}

export const DEFAULT_ENGINE_SETTINGS: EngineSettings = {
  batchSize: 500,
  sendTimeoutMs: 10 * 60_000,
  recheckMs: 60 * 60_000,
  defaultPromiseDays: 7,
  installmentGraceDays: 3,
  sweepBudgetMs: 10_000,
  idleSweepMs: 1_000,
};
