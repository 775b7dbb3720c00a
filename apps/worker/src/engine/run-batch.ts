/**
 * One round of the engine (docs/decisions/0603): the send transaction
 * (claim, re-read, decide, `in_progress`, commit), the providers' calls,
 * then the outcome transaction. The same code serves the live sweep and a
 * sandbox company's clock; only the scope of the claim differs. An outcome
 * transaction that fails leaves its followups `in_progress` for the
 * recovery, which asks the providers what they received.
 */
import type { ClaimScope } from "@dc/db";
import { deliver } from "./deliver.ts";
import type { EngineDependencies } from "./engine-dependencies.ts";
import { inTransaction } from "./in-transaction.ts";
import { prepareSends } from "./prepare-sends.ts";
import { recordOutcomes } from "./record-outcomes.ts";

export interface BatchResult {
  /** Followups claimed (0: nothing was due). */
  readonly claimed: number;
  /** Followups handed to a provider (or failed before it) whose outcome was recorded. */
  readonly recorded: number;
  readonly deferred: number;
  readonly blocked: number;
}

export const runBatch = async (dependencies: EngineDependencies, scope: ClaimScope): Promise<BatchResult> => {
  const { clock, adapters, logger } = dependencies;
  const prepared = await inTransaction(dependencies, (trx) => prepareSends(trx, dependencies, scope, clock.now()));
  const result = { claimed: prepared.claimed, recorded: 0, deferred: prepared.deferred, blocked: prepared.blocked };
  if (prepared.sends.length === 0) return result;
  const answered = await deliver(adapters, prepared.sends, logger);
  try {
    const recorded = await inTransaction(dependencies, (trx) =>
      recordOutcomes(trx, dependencies, answered, clock.now()),
    );
    return { ...result, recorded };
  } catch (error) {
    logger.error(
      { err: error, followups: answered.map(({ send }) => send.context.id) },
      "send outcomes not recorded: left in_progress for the recovery",
    );
    return result;
  }
};
