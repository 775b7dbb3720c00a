/**
 * Hands prepared sends to their providers, after the `in_progress` commit
 * (docs/decisions/0600): one `send` per provider with its messages in order,
 * providers called at once. A send whose outcome was known beforehand (a
 * template that does not render) skips its provider. A provider whose
 * `send` rejects leaves its followups `in_progress`: nothing is known of
 * them, and the recovery asks the provider (`lookup`) once the send timeout
 * has passed, instead of sending blindly again.
 */
import type { Logger } from "pino";
import type { ChannelAdapter, ChannelAdapters } from "../channels/channel-adapter.ts";
import type { PreparedSend } from "./prepare-sends.ts";
import type { AnsweredSend } from "./record-outcomes.ts";

export const deliver = async (
  adapters: ChannelAdapters,
  sends: ReadonlyArray<PreparedSend>,
  logger: Logger,
): Promise<ReadonlyArray<AnsweredSend>> => {
  const answered: AnsweredSend[] = [];
  const groups = new Map<ChannelAdapter, PreparedSend[]>();
  for (const send of sends) {
    if (send.failure !== null) {
      answered.push({ send, outcome: send.failure });
      continue;
    }
    const adapter = adapters.adapterFor({ sandbox: send.context.company_sandbox }, send.message.channel);
    const group = groups.get(adapter);
    if (group === undefined) groups.set(adapter, [send]);
    else group.push(send);
  }
  const results = await Promise.all(
    [...groups].map(async ([adapter, group]) => {
      try {
        const outcomes = await adapter.send(group.map((send) => send.message));
        if (outcomes.length !== group.length)
          throw new Error(`the provider answered ${outcomes.length} outcomes for ${group.length} messages`);
        return group.map((send, index) => ({ send, outcome: outcomes[index]! }));
      } catch (error) {
        logger.error(
          { err: error, followups: group.map((send) => send.context.id) },
          "channel provider failed: followups left in_progress for the recovery",
        );
        return [];
      }
    }),
  );
  for (const result of results) answered.push(...result);
  return answered;
};
