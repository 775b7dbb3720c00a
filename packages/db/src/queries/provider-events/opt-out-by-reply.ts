/**
 * Opts a number out of a channel on its reply STOP (docs/decisions/0631):
 * one `channel_opt_outs` row of source `reply` for every debt of the company
 * that was sent a message on that channel at that number, which the
 * compliance guard obeys before every later step on the channel. One
 * statement; an existing opt-out of any source is kept as it is.
 */
import { sql } from "kysely";
import { textArray } from "../array-literals.ts";
import type { DbTransaction } from "../executor.ts";
import type { Reply } from "./find-replied-followups.ts";

/** Returns how many opt-outs were added. */
export const optOutByReply = async (
  trx: DbTransaction,
  companyId: number,
  replies: ReadonlyArray<Reply>,
  now: Date,
): Promise<number> => {
  if (replies.length === 0) return 0;
  const { rows } = await sql<{ debt_id: number }>`
    insert into channel_opt_outs (company_id, debt_id, channel, source, created_at)
    select distinct f.company_id, f.debt_id, f.type, 'reply', ${now.toISOString()}::timestamptz
    from unnest(
      ${textArray(replies.map((reply) => reply.channel))}::text[],
      ${textArray(replies.map((reply) => reply.from))}::text[]
    ) as i (channel, sender)
    join followups f
      on f.company_id = ${companyId}::int8 and f.recipient = i.sender and f.type = i.channel
        and f.provider_message_id is not null
    on conflict (company_id, debt_id, channel) do nothing
    returning debt_id
  `.execute(trx);
  return rows.length;
};
