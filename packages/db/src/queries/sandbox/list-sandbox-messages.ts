/**
 * A page of a sandbox company's messages (what its channels would have
 * sent), newest first, optionally of one debt, with the total, in one
 * statement (`pageOfRows`); the debt filter uses `sandbox_messages_debt_idx`.
 */
import type { Db } from "../executor.ts";
import { pageOfRows, type PageRequest } from "../page-of-rows.ts";

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
      filtered
        .select([
          "m.id",
          "m.debt_id",
          "m.followup_id",
          "m.channel",
          "m.recipient",
          "m.subject",
          "m.body",
          "m.outcome",
          "m.sent_at",
        ])
        .orderBy("m.sent_at", "desc")
        .orderBy("m.id", "desc"),
    page,
  );
};
