/**
 * The outcome transaction (docs/decisions/0604): for the followups of a
 * batch whose providers answered, one transaction writes the followups'
 * outcomes (only those still `in_progress`: an outcome is applied once),
 * the debts' counters and their `pending` -> `in_progress` move, the
 * credits' ledger rows, what comes next (retry, next step, completion), the
 * pause of a promise to pay, the disputes and objections a call's analysis
 * showed (review items, docs/decisions/0641), the `followup.updated` and `debt.updated`
 * webhook events, and last the companies' credit balances (that statement
 * locks the company rows until the commit, decision 0152). A send its
 * provider only accepted (its outcome comes by callback) stays
 * `in_progress` with the provider's message id (docs/decisions/0630).
 */
import {
  addDebtContacts,
  type DebtContacts,
  type DbTransaction,
  debitCompaniesCredits,
  insertAiDetections,
  insertFollowupCharges,
  pauseEnrollments,
  recordAcceptedSends,
  recordEvents,
  recordSendOutcomes,
  scheduleSteps,
  subscribedWebhookEventTypes,
  type WebhookEventInput,
} from "@dc/db";
import type { FinalOutcome, Outcome } from "../channels/channel-adapter.ts";
import { byCompany } from "./by-company.ts";
import { debtUpdatedEvents } from "./debt-events.ts";
import { followupUpdatedEvents } from "./followup-events.ts";
import type { EngineDependencies } from "./engine-dependencies.ts";
import { outcomeEffects } from "./outcome-effects.ts";
import type { PreparedSend } from "./prepare-sends.ts";

export interface AnsweredSend {
  readonly send: PreparedSend;
  readonly outcome: Outcome;
}

/** Records `answered` in `trx`; returns how many outcomes were applied (the others were already recorded). */
export const recordOutcomes = async (
  trx: DbTransaction,
  dependencies: Pick<EngineDependencies, "ids" | "links" | "engine">,
  answered: ReadonlyArray<AnsweredSend>,
  now: Date,
): Promise<number> => {
  if (answered.length === 0) return 0;
  await recordAcceptedSends(
    trx,
    answered.flatMap(({ send, outcome }) =>
      outcome.status === "accepted"
        ? [
            {
              companyId: send.context.company_id,
              followupId: send.context.id,
              providerMessageId: outcome.providerMessageId,
            },
          ]
        : [],
    ),
    now,
  );
  const finals = answered.flatMap(({ send, outcome }) => (outcome.status === "accepted" ? [] : [{ send, outcome }]));
  if (finals.length === 0) return 0;
  const effects = finals.map(({ send, outcome }: { send: PreparedSend; outcome: FinalOutcome }) => ({
    send,
    effects: outcomeEffects(send.context, send.decoded.step, send.message.recipient, outcome, dependencies.engine),
  }));
  const written = await recordSendOutcomes(
    trx,
    effects.map(({ effects: e }) => e.record),
    now,
  );
  const writtenKeys = new Set(written.map((row) => `${row.companyId}:${row.followupId}`));
  const applied = effects.filter(({ send }) => writtenKeys.has(`${send.context.company_id}:${send.context.id}`));
  if (applied.length === 0) return 0;

  // The next steps first: their followups are counted with the debts' other changes, one write per debt.
  const added: number[] = [];
  for (const [companyId, group] of byCompany(applied, ({ send }) => send.context.company_id)) {
    const scheduled = await scheduleSteps(
      trx,
      companyId,
      group.map(({ effects: e }) => e.next),
      now,
      { countFollowups: false },
    );
    added.push(...scheduled.debtIds);
  }
  const perDebt = new Map<
    string,
    DebtContacts & { reminders: number; answered: number; followups: number; start: boolean }
  >();
  const debtOf = (companyId: number, debtId: number) => {
    const key = `${companyId}:${debtId}`;
    let debt = perDebt.get(key);
    if (debt === undefined) {
      debt = { companyId, debtId, reminders: 0, answered: 0, followups: 0, start: false };
      perDebt.set(key, debt);
    }
    return debt;
  };
  for (const { send, effects: e } of applied) {
    const debt = debtOf(send.context.company_id, send.context.debt_id);
    debt.reminders += e.executed ? 1 : 0;
    debt.answered += e.answered ? 1 : 0;
    debt.start ||= e.start;
  }
  // Debt ids are unique across companies: each added followup belongs to a debt of this batch.
  const companyOfDebt = new Map(applied.map(({ send }) => [send.context.debt_id, send.context.company_id]));
  for (const debtId of added) debtOf(companyOfDebt.get(debtId) ?? 0, debtId).followups += 1;
  const changedDebts = await addDebtContacts(trx, [...perDebt.values()], now);
  const charges = applied
    .filter(({ effects: e }) => e.credits > 0)
    .map(({ send, effects: e }) => ({
      companyId: send.context.company_id,
      followupId: send.context.id,
      credits: e.credits,
    }));
  await insertFollowupCharges(trx, charges, now);
  await insertAiDetections(
    trx,
    applied.flatMap(({ send, effects: e }) =>
      e.detections.map((detection) => ({
        companyId: send.context.company_id,
        debtId: send.context.debt_id,
        followupId: send.context.id,
        type: detection.type,
        excerpt: detection.excerpt,
        at: send.context.now,
      })),
    ),
  );
  for (const { send, effects: e } of applied) {
    if (e.promiseUntil === null) continue;
    await pauseEnrollments(trx, {
      companyId: send.context.company_id,
      debtIds: [send.context.debt_id],
      until: e.promiseUntil,
      reason: "promise_to_pay",
      now,
    });
  }
  await recordOutcomeEvents(
    trx,
    dependencies,
    applied.map(({ send }) => send),
    changedDebts,
    now,
  );
  await debitCompaniesCredits(trx, charges);
  return applied.length;
};

/** `followup.updated` per recorded followup and `debt.updated` per changed debt, for the companies that subscribe. */
const recordOutcomeEvents = async (
  trx: DbTransaction,
  { ids, links }: Pick<EngineDependencies, "ids" | "links">,
  sends: ReadonlyArray<PreparedSend>,
  debts: ReadonlyArray<{ readonly companyId: number; readonly debtId: number }>,
  now: Date,
): Promise<void> => {
  const events: WebhookEventInput[] = [];
  for (const [companyId, group] of byCompany(sends, (send) => send.context.company_id)) {
    const wanted = await subscribedWebhookEventTypes(trx, companyId);
    if (wanted.size === 0) continue;
    events.push(
      ...(await followupUpdatedEvents(
        trx,
        ids,
        companyId,
        group.map((send) => send.context.id),
        now,
        wanted,
      )),
    );
    const debtIds = debts.filter((debt) => debt.companyId === companyId).map((debt) => debt.debtId);
    events.push(...(await debtUpdatedEvents(trx, ids, links, companyId, debtIds, now, wanted)));
  }
  await recordEvents(trx, events);
};
