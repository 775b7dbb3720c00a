/** A sandbox company's clock and messages in their contract shapes (the sandbox operations, docs/decisions/0621). */
import type { Endpoints } from "@dc/contract";
import type { DomainIds as Ids, listSandboxMessages } from "@dc/db";

type MessageRow = Awaited<ReturnType<typeof listSandboxMessages>>["rows"][number];
export type SandboxMessageView = Endpoints["listSandboxMessages"]["success"]["schema"]["Type"]["data"][number];

export const presentSandboxMessage = (ids: Ids, row: MessageRow): SandboxMessageView => ({
  id: ids.encode("sandbox_message", row.id),
  debt_id: ids.encode("debt", row.debt_id),
  followup_id: ids.encode("followup", row.followup_id),
  channel: row.channel,
  recipient: row.recipient,
  subject: row.subject,
  body: row.body,
  outcome: row.outcome,
  sent_at: row.sent_at,
});
