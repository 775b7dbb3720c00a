/**
 * Applies debtors' replies to SMS and WhatsApp messages
 * (docs/decisions/0631), set-based for a batch: each reply answers the
 * company's latest followup of its channel sent to the number it came from.
 * An opt-out keyword opts that number out of the channel; any other reply
 * adds one to the debt's `nb_answered`, and one that reads as a dispute adds
 * a suggested, blocking `ai_dispute` detection on the debt and the followup,
 * which the engine's guard holds on. A reply that matches no followup is
 * marked processed without one. The inbox stores a message once per
 * MessageSid and the batch marks it processed in the same transaction, so a
 * replayed webhook changes nothing twice.
 */
import {
  addDebtContacts,
  type AiDetectionInput,
  type DbTransaction,
  findRepliedFollowups,
  insertAiDetections,
  optOutByReply,
  type PendingProviderEvent,
  recordEvents,
  type Reply,
} from "@dc/db";
import { InboundReply } from "@dc/domain";
import type { InboundMessage } from "@dc/providers";
import { debtUpdatedEvents } from "../engine/debt-events.ts";
import type { EngineDependencies } from "../engine/engine-dependencies.ts";

const keyOf = (reply: Reply): string => `${reply.channel}:${reply.from}`;

export const applyInboundReplies = async (
  trx: DbTransaction,
  dependencies: Pick<EngineDependencies, "ids" | "links">,
  companyId: number,
  events: ReadonlyArray<{ readonly row: PendingProviderEvent; readonly event: InboundMessage }>,
  now: Date,
): Promise<ReadonlyMap<number, number | null>> => {
  const done = new Map<number, number | null>();
  if (events.length === 0) return done;
  const matched = await findRepliedFollowups(
    trx,
    companyId,
    events.map(({ event }) => ({ channel: event.channel, from: event.from })),
  );
  const byNumber = new Map(matched.map((followup) => [keyOf(followup), followup]));
  const optOuts: Reply[] = [];
  const answered = new Map<number, number>();
  const detections: AiDetectionInput[] = [];
  for (const { row, event } of events) {
    const followup = byNumber.get(keyOf({ channel: event.channel, from: event.from }));
    done.set(row.id, followup?.followupId ?? null);
    if (followup === undefined) continue;
    const meaning = InboundReply.meaningOf(event.body);
    if (meaning === "opt_out") {
      optOuts.push(followup);
      continue;
    }
    answered.set(followup.debtId, (answered.get(followup.debtId) ?? 0) + 1);
    if (meaning === "dispute")
      detections.push({
        companyId,
        debtId: followup.debtId,
        followupId: followup.followupId,
        type: "ai_dispute",
        excerpt: event.body,
        at: now,
      });
  }
  await optOutByReply(trx, companyId, optOuts, now);
  const changed = await addDebtContacts(
    trx,
    [...answered].map(([debtId, count]) => ({
      companyId,
      debtId,
      reminders: 0,
      answered: count,
      followups: 0,
      start: false,
    })),
    now,
  );
  await insertAiDetections(trx, detections);
  await recordEvents(
    trx,
    await debtUpdatedEvents(
      trx,
      dependencies.ids,
      dependencies.links,
      companyId,
      changed.map((debt) => debt.debtId),
      now,
    ),
  );
  return done;
};
