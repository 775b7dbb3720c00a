/**
 * Final outcomes that arrive by provider callback (an AI call's result,
 * docs/decisions/0630) go through the same outcome transaction as a send's
 * answer (record-outcomes.ts): counters, credits, next step, webhooks, in
 * one place. The followups are re-read as the recovery reads them, each
 * by its company and id; one no longer `in_progress` (already recorded) is
 * left alone.
 */
import { type DbTransaction, loadSendContexts } from "@dc/db";
import type { FinalOutcome } from "../channels/channel-adapter.ts";
import type { EngineDependencies } from "./engine-dependencies.ts";
import { stepContexts } from "./guard-input.ts";
import { sendInProgress } from "./prepare-sends.ts";
import { type AnsweredSend, recordOutcomes } from "./record-outcomes.ts";

export interface CallbackOutcome {
  readonly companyId: number;
  readonly followupId: number;
  readonly outcome: FinalOutcome;
}

/**
 * Returns the followups found: those of the outcomes that are their
 * company's (an outcome naming another company's followup finds none), its
 * outcome applied when it was still `in_progress`.
 */
export const recordCallbackOutcomes = async (
  trx: DbTransaction,
  dependencies: Pick<EngineDependencies, "ids" | "links" | "engine">,
  outcomes: ReadonlyArray<CallbackOutcome>,
  now: Date,
): Promise<ReadonlySet<number>> => {
  if (outcomes.length === 0) return new Set();
  const contexts = await loadSendContexts(
    trx,
    outcomes.map(({ companyId, followupId }) => ({ companyId, followupId })),
    now,
  );
  const byId = new Map(outcomes.map((outcome) => [outcome.followupId, outcome.outcome]));
  const decode = stepContexts();
  const answered: AnsweredSend[] = [];
  for (const context of contexts) {
    const outcome = byId.get(context.id);
    if (outcome === undefined || context.status !== "in_progress") continue;
    answered.push({ send: sendInProgress(dependencies.ids, dependencies.links, decode, context), outcome });
  }
  await recordOutcomes(trx, dependencies, answered, now);
  return new Set(contexts.map((context) => context.id));
};
