/**
 * The recovery of sends left `in_progress` (docs/decisions/0605): a worker
 * stopped between marking a followup `in_progress` and recording its
 * outcome leaves it there. Once it is older than the send timeout, the
 * recovery claims it, rebuilds its message (same idempotency key) and asks
 * its provider what it received (`lookup`): a known outcome is recorded as
 * if the send had answered; `null` (the provider never received it) puts the
 * followup back to `scheduled` at the company's now, for the next round to
 * decide and send again. A provider still working on it (a call in
 * progress) leaves it `in_progress` for another send timeout. Nothing is
 * ever sent blindly twice.
 */
import { type AcceptedSend, claimStaleSends, loadSendContexts, recordAcceptedSends, setFollowupStates } from "@dc/db";
import type { ChannelAdapter, Outcome, StillRunning } from "../channels/channel-adapter.ts";
import type { EngineDependencies } from "./engine-dependencies.ts";
import { stepContexts } from "./guard-input.ts";
import { inTransaction } from "./in-transaction.ts";
import { type PreparedSend, sendInProgress } from "./prepare-sends.ts";
import { type AnsweredSend, recordOutcomes } from "./record-outcomes.ts";

export interface RecoveryResult {
  readonly claimed: number;
  readonly recorded: number;
  readonly rescheduled: number;
}

/** Reconciles at most one batch of stale sends. */
export const recoverStaleSends = async (dependencies: EngineDependencies): Promise<RecoveryResult> => {
  const { clock, engine, ids, links, adapters, logger } = dependencies;
  return inTransaction(dependencies, async (trx) => {
    const now = clock.now();
    const claimed = await claimStaleSends(trx, new Date(now.getTime() - engine.sendTimeoutMs), engine.batchSize);
    if (claimed.length === 0) return { claimed: 0, recorded: 0, rescheduled: 0 };
    const contexts = await loadSendContexts(trx, claimed, now);
    const decode = stepContexts();
    const answered: AnsweredSend[] = [];
    const unknown: PreparedSend[] = [];
    const running: AcceptedSend[] = [];
    for (const context of contexts) {
      // The message is rebuilt at the recovery's now; the provider is asked for what it received since the send began.
      const send = sendInProgress(ids, links, decode, context);
      const adapter: ChannelAdapter = adapters.adapterFor({ sandbox: context.company_sandbox }, send.decoded.step.channel);
      let outcome: Outcome | StillRunning | null;
      try {
        outcome = send.failure ?? (await adapter.lookup(send.message, context.provider_message_id));
      } catch (error) {
        logger.error({ err: error, followup: context.id }, "provider lookup failed: the send stays in_progress");
        continue;
      }
      if (outcome === null) unknown.push(send);
      else if (outcome.status === "running")
        running.push({ companyId: context.company_id, followupId: context.id, providerMessageId: null });
      else answered.push({ send, outcome });
    }
    await setFollowupStates(
      trx,
      unknown.map(({ context }) => ({
        companyId: context.company_id,
        followupId: context.id,
        status: "scheduled",
        recipient: null,
        scheduledAt: context.now,
      })),
      now,
    );
    await recordAcceptedSends(trx, running, now);
    const recorded = await recordOutcomes(trx, dependencies, answered, now);
    if (claimed.length > 0)
      logger.warn({ claimed: claimed.length, recorded, rescheduled: unknown.length }, "stale sends reconciled");
    return { claimed: claimed.length, recorded, rescheduled: unknown.length };
  });
};
