/**
 * The provider of every channel of a sandbox company (docs/sandbox.md):
 * nothing leaves the machine. A send records each message in
 * `sandbox_messages` (one statement per batch) with the outcome its
 * recipient's magic value chose; the unique idempotency key makes a second
 * send of the same attempt record nothing more. `lookup` reads that record
 * back, so a crash between the send and the engine's outcome commit is
 * reconciled exactly: recorded means received, with the same outcome.
 * A database failure rejects the whole send (nothing is known of the
 * batch, and the engine's recovery asks `lookup`).
 */
import { type Db, findSandboxMessages, insertSandboxMessages, type StoredSandboxMessage } from "@dc/db";
import type { ChannelAdapter, OutboundMessage, Outcome } from "./channel-adapter.ts";
import { sandboxOutcome } from "./sandbox-outcomes.ts";

/** The outcome is a function of what was received and when, so it is recomputed from the record. */
const outcomeOf = (message: OutboundMessage, stored: StoredSandboxMessage): Outcome =>
  sandboxOutcome({ ...message, recipient: stored.recipient, at: stored.sent_at });

export const sandboxAdapter = (db: Db): ChannelAdapter => {
  const lookup = async (message: OutboundMessage): Promise<Outcome | null> => {
    const [stored] = await findSandboxMessages(db, message.companyId, [message.idempotencyKey]);
    return stored === undefined ? null : outcomeOf(message, stored);
  };
  return {
    send: async (messages: ReadonlyArray<OutboundMessage>): Promise<ReadonlyArray<Outcome>> => {
      const outcomes = messages.map(sandboxOutcome);
      const inserted = await insertSandboxMessages(
        db,
        messages.map((message, index) => ({
          companyId: message.companyId,
          debtId: message.debtId,
          followupId: message.followupId,
          idempotencyKey: message.idempotencyKey,
          channel: message.channel,
          recipient: message.recipient,
          subject: message.subject,
          body: message.body,
          outcome: outcomes[index]!.status,
          sentAt: message.at,
        })),
      );
      if (inserted.length === messages.length) return outcomes;
      // A key already recorded keeps the outcome of what was recorded under it, as `lookup` answers.
      const keyOf = (companyId: number, key: string) => `${companyId}/${key}`;
      const fresh = new Set(inserted.map((row) => keyOf(row.companyId, row.idempotencyKey)));
      const skipped = new Map<number, string[]>();
      for (const message of messages) {
        if (fresh.has(keyOf(message.companyId, message.idempotencyKey))) continue;
        const keys = skipped.get(message.companyId) ?? [];
        keys.push(message.idempotencyKey);
        skipped.set(message.companyId, keys);
      }
      const stored = new Map<string, StoredSandboxMessage>();
      for (const [companyId, keys] of skipped) {
        for (const row of await findSandboxMessages(db, companyId, keys))
          stored.set(keyOf(companyId, row.idempotency_key), row);
      }
      return messages.map((message, index) => {
        const record = stored.get(keyOf(message.companyId, message.idempotencyKey));
        return record === undefined ? outcomes[index]! : outcomeOf(message, record);
      });
    },
    lookup,
  };
};
