/**
 * The debt's wire form (contract 2.3) from a DebtView: the one presenter of
 * `@dc/db` (shared with the debt.* webhook payloads, so they cannot drift),
 * timestamps left as Dates for the response schema to format, and the result
 * checked against the contract's type.
 */
import type { Debt } from "@dc/contract";
import { type DebtView, presentDebtView } from "@dc/db";
import type { DomainIds as Ids } from "@dc/db";

export const presentDebt = (ids: Ids, view: DebtView, collectionAgency: boolean): Debt =>
  presentDebtView(ids, view, collectionAgency, (date) => date);
