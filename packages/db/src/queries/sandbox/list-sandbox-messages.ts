/**
 * A page of a sandbox company's messages (what its channels would have
 * sent), newest first, optionally of one debt, with the total, in one
 * statement (`pageOfRows`); the debt filter uses `sandbox_messages_debt_idx`.
 */
import type { Db } from "../executor.ts";
import type { Keyset } from "../keyset.ts";
import { pageOfRows, type PageRequest } from "../page-of-rows.ts";

/**
 * Newest first by id: the sandbox records messages in the order its clock
 * sends them, and `(company_id, id)` and `(company_id, debt_id, id)` serve a
 * page after a key.
 */
export const sandboxMessageOrder: Keyset = [{ column: "m.id", direction: "desc", kind: "integer" }];

export const listSandboxMessages = (
  db: Db,
  filter: { readonly companyId: number; readonly debtId?: number | undefined },
  page: PageRequest,
) => {
  const base = db.selectFrom("sandbox_messages as m").where("m.company_id", "=", filter.companyId);
  return pageOfRows(
    db,
    filter.debtId === undefined ? base : base.where("m.debt_id", "=", filter.debtId),
    (filtered) =>
      filtered.select([
        "m.id",
        "m.debt_id",
        "m.followup_id",
        "m.channel",
        "m.recipient",
        "m.subject",
        "m.body",
        "m.outcome",
        "m.sent_at",
      ]),
    sandboxMessageOrder,
    page,
  );
};
