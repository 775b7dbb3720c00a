/**
 * The followup a reply answers (docs/decisions/0631): for each reply's
 * channel and sender number, the company's latest followup of that channel
 * that its provider accepted (a message id) for that number, latest by send
 * time. One statement on the `(company_id, recipient, call_date)` index,
 * whatever the count; a reply matching nothing has no row.
 */
import { sql } from "kysely";
import { textArray } from "../array-literals.ts";
import type { DbTransaction } from "../executor.ts";

export interface Reply {
  readonly channel: "sms" | "whatsapp";
  /** The number the reply came from: the recipient of the followup it answers. */
  readonly from: string;
}

export interface RepliedFollowup extends Reply {
  readonly followupId: number;
  readonly debtId: number;
}

export const findRepliedFollowups = async (
  trx: DbTransaction,
  companyId: number,
  replies: ReadonlyArray<Reply>,
): Promise<ReadonlyArray<RepliedFollowup>> => {
  if (replies.length === 0) return [];
  const { rows } = await sql<{ channel: "sms" | "whatsapp"; sender: string; id: number; debt_id: number }>`
    select r.channel, r.sender, f.id, f.debt_id
    from (select distinct channel, sender from unnest(
      ${textArray(replies.map((reply) => reply.channel))}::text[],
      ${textArray(replies.map((reply) => reply.from))}::text[]
    ) as i (channel, sender)) r
    cross join lateral (
      select f.id, f.debt_id
      from followups f
      where f.company_id = ${companyId}::int8 and f.recipient = r.sender and f.type = r.channel
        and f.provider_message_id is not null
      order by f.call_date desc nulls last, f.id desc
      limit 1
    ) f
  `.execute(trx);
  return rows.map((row) => ({ channel: row.channel, from: row.sender, followupId: row.id, debtId: row.debt_id }));
};
