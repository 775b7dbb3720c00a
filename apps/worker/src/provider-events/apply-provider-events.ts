/**
 * Applies a company's stored provider callbacks (docs/decisions/0630), in
 * batches, each batch one transaction: claim the unprocessed events, parse
 * them with their provider's module, apply them set-based, mark them
 * processed.
 *
 * - A final outcome (an AI call's result) for a followup still
 *   `in_progress` goes through the engine's outcome transaction.
 * - A delivery update for a followup already `sent` is one statement plus
 *   its `followup.updated` events; it never moves a followup backwards.
 * - A debtor's reply to an SMS or a WhatsApp message opts out, counts as an
 *   answer, or suggests a dispute (`applyInboundReplies`, decision 0631).
 * - An event whose followup is still `in_progress` without its outcome
 *   recorded (the callback overtook the send's own commit), or not found
 *   yet, waits: the run asks for another look `retryDelayMs` later, and an
 *   event still unmatched after `unmatchedAfterMs` is marked processed
 *   without a followup.
 */
import {
  applyDeliveryUpdates,
  claimProviderEvents,
  type DbTransaction,
  enqueueProviderEvents,
  findFollowupsByProviderMessage,
  markProviderEvents,
  type PendingProviderEvent,
  recordEvents,
} from "@dc/db";
import { type DeliveryUpdate, type FinalOutcome, parseProviderEvent, type ProviderEvent } from "@dc/providers";
import type { EngineDependencies } from "../engine/engine-dependencies.ts";
import { followupUpdatedEvents } from "../engine/followup-events.ts";
import { inTransaction } from "../engine/in-transaction.ts";
import { type CallbackOutcome, recordCallbackOutcomes } from "../engine/record-callback-outcomes.ts";
import { applyInboundReplies } from "./apply-inbound-replies.ts";
import { finalOutcomeOf } from "./final-outcome.ts";

export interface ProviderEventSettings {
  readonly batchSize: number;
  /** How long an event may wait for its followup before it is dropped. */
  readonly unmatchedAfterMs: number;
  /** When a run left events waiting: its next look. */
  readonly retryDelayMs: number;
}

export const DEFAULT_PROVIDER_EVENT_SETTINGS: ProviderEventSettings = {
  batchSize: 500,
  unmatchedAfterMs: 24 * 3_600_000,
  retryDelayMs: 30_000,
};

/** Handles one kind of parsed event of a batch; answers the followup of each event it applied (null: none), by event id. */
export type EventHandler<E extends ProviderEvent> = (
  trx: DbTransaction,
  companyId: number,
  events: ReadonlyArray<{ readonly row: PendingProviderEvent; readonly event: E }>,
  now: Date,
) => Promise<ReadonlyMap<number, number | null>>;

export interface ApplyResult {
  readonly applied: number;
  readonly waiting: number;
}

/** Walks the company's unprocessed events once, oldest first. */
export const applyProviderEvents = async (
  dependencies: EngineDependencies,
  companyId: number,
  settings: ProviderEventSettings = DEFAULT_PROVIDER_EVENT_SETTINGS,
): Promise<ApplyResult> => {
  let afterId = 0;
  let applied = 0;
  let waiting = 0;
  for (;;) {
    const batch = await inTransaction(dependencies, async (trx) => {
      const now = dependencies.clock.now();
      const rows = await claimProviderEvents(trx, companyId, afterId, settings.batchSize);
      if (rows.length === 0) return undefined;
      const parsed = rows.map((row) => ({ row, event: parseProviderEvent(row.provider, row.payload) }));
      const done = new Map<number, number | null>();
      for (const { row, event } of parsed) if (event._tag === "Ignored") done.set(row.id, null);
      const ofTag = <T extends ProviderEvent["_tag"]>(tag: T) =>
        parsed.filter(
          (entry): entry is { row: PendingProviderEvent; event: Extract<ProviderEvent, { _tag: T }> } =>
            entry.event._tag === tag,
        );
      for (const [id, followupId] of await applyDeliveries(trx, dependencies, companyId, ofTag("DeliveryUpdate"), now))
        done.set(id, followupId);
      for (const [id, followupId] of await applyFinalOutcomes(trx, dependencies, companyId, ofTag("FinalOutcome"), now))
        done.set(id, followupId);
      for (const [id, followupId] of await applyInboundReplies(
        trx,
        dependencies,
        companyId,
        ofTag("InboundMessage"),
        now,
      ))
        done.set(id, followupId);
      const stale = rows.filter(
        (row) => !done.has(row.id) && now.getTime() - row.received_at.getTime() >= settings.unmatchedAfterMs,
      );
      for (const row of stale) done.set(row.id, null);
      await markProviderEvents(
        trx,
        companyId,
        [...done].map(([id, followupId]) => ({ id, followupId })),
        now,
      );
      return { lastId: rows[rows.length - 1]!.id, applied: done.size - stale.length, waiting: rows.length - done.size };
    });
    if (batch === undefined) break;
    afterId = batch.lastId;
    applied += batch.applied;
    waiting += batch.waiting;
  }
  if (waiting > 0) await enqueueProviderEvents(dependencies.db, companyId, settings.retryDelayMs);
  return { applied, waiting };
};

const applyDeliveries: (
  trx: DbTransaction,
  dependencies: Pick<EngineDependencies, "ids">,
  companyId: number,
  events: ReadonlyArray<{ readonly row: PendingProviderEvent; readonly event: DeliveryUpdate }>,
  now: Date,
) => Promise<ReadonlyMap<number, number | null>> = async (trx, dependencies, companyId, events, now) => {
  const done = new Map<number, number | null>();
  if (events.length === 0) return done;
  const followups = await findFollowupsByProviderMessage(
    trx,
    companyId,
    events.map(({ event }) => event.providerMessageId),
  );
  const byMessage = new Map(followups.map((followup) => [followup.provider_message_id, followup]));
  const updates = [];
  for (const { row, event } of events) {
    const followup = byMessage.get(event.providerMessageId);
    // Not found, or found still in_progress: the send's own outcome is not committed yet.
    if (followup === undefined || followup.status === "in_progress" || followup.status === "scheduled") continue;
    done.set(row.id, followup.id);
    updates.push({
      followupId: followup.id,
      status: event.status,
      notes: event.status === "failed" ? failureNote(row.provider, event) : null,
    });
  }
  const changed = await applyDeliveryUpdates(trx, companyId, updates, now);
  await recordEvents(trx, await followupUpdatedEvents(trx, dependencies.ids, companyId, changed, now));
  return done;
};

/** What a failed delivery keeps in the followup's notes: `<provider> error <code>: <message>`. */
export const failureNote = (provider: string, event: DeliveryUpdate): string =>
  `${provider} error ${event.errorCode ?? "unknown"}${event.errorMessage === null ? "" : `: ${event.errorMessage}`}`;

const applyFinalOutcomes = async (
  trx: DbTransaction,
  dependencies: Pick<EngineDependencies, "ids" | "links" | "engine">,
  companyId: number,
  events: ReadonlyArray<{ readonly row: PendingProviderEvent; readonly event: FinalOutcome }>,
  now: Date,
): Promise<ReadonlyMap<number, number | null>> => {
  const done = new Map<number, number | null>();
  if (events.length === 0) return done;
  const followups = await findFollowupsByProviderMessage(
    trx,
    companyId,
    events.map(({ event }) => event.providerMessageId),
  );
  const byMessage = new Map(followups.map((followup) => [followup.provider_message_id, followup.id]));
  const outcomes: Array<CallbackOutcome & { readonly eventId: number }> = [];
  for (const { row, event } of events) {
    // The call's id, once the send recorded it; before that, the followup our metadata names.
    const followupId =
      byMessage.get(event.providerMessageId) ??
      (event.followupPublicId === null ? undefined : dependencies.ids.decode("followup", event.followupPublicId));
    if (followupId === undefined) continue;
    outcomes.push({ eventId: row.id, companyId, followupId, outcome: finalOutcomeOf(event.outcome, event.providerMessageId) });
  }
  // A followup that is not the company's (metadata naming another company's) is not found: its event waits, then is dropped.
  const found = await recordCallbackOutcomes(trx, dependencies, outcomes, now);
  for (const { eventId, followupId } of outcomes) if (found.has(followupId)) done.set(eventId, followupId);
  return done;
};
