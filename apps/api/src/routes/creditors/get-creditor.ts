/**
 * GET /creditors/{id}: one creditor with its debt totals, nested at
 * `data.data` (contract 2.2). Totals come from the maintained counters of
 * migration 0002; `totalAmount` sums remaining balances (docs/decisions/0102),
 * exactly in SQL (packages/db creditor-totals.ts).
 */
import { creditorMessages, type Endpoints, messages } from "@dc/contract";
import { creditorTotals, findCreditor } from "@dc/db";
import { NotFound } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { presentCreditor } from "../../presenters/present-creditor.ts";

export const getCreditor: HandlerOf<Endpoints["getCreditor"]> = async ({ params, principal, services }) => {
  const creditorId = services.ids.decode("creditor", params.id);
  if (creditorId === undefined) throw new NotFound({ message: messages.creditorNotFound });
  const [row, totals] = await Promise.all([
    findCreditor(services.db, principal.companyId, creditorId),
    creditorTotals(services.db, principal.companyId, creditorId),
  ]);
  if (row === undefined) throw new NotFound({ message: messages.creditorNotFound });
  // Each exact decimal becomes a JSON number once: the double nearest to it, however large the total.
  const byCurrency = Object.fromEntries(totals.byCurrency.map(({ currency, balance }) => [currency, Number(balance)]));
  return {
    body: {
      error: false,
      message: creditorMessages.retrieved,
      data: {
        data: {
          ...presentCreditor(services.ids, row),
          totalDebts: totals.debts,
          totalAmount: Number(totals.balance),
          totalAmountByCurrency: byCurrency,
        },
      },
    },
  };
};
