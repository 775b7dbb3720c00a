/**
 * The debt's wire form (contract 2.3) from a DebtView: the one presenter of
 * `@dc/db` (shared with the debt.* webhook payloads, so they cannot drift),
 * timestamps left as Dates for the response schema to format, and the result
 * checked against the contract's type. A debt without a company-set
 * `payment_link` shows its debtor page link (docs/decisions/0670).
 */
import type { Debt } from "@dc/contract";
import { type DebtLinks, type DebtView, presentDebtView } from "@dc/db";
import type { DomainIds as Ids } from "@dc/db";

export const presentDebt = (ids: Ids, view: DebtView, collectionAgency: boolean, links: DebtLinks): Debt =>
  presentDebtView(ids, view, collectionAgency, (date) => date, links);
