/**
 * GET /creditors/{id}: one creditor with its debt totals, nested at
 * `data.data` (contract 2.2). Totals come from the maintained counters of
 * migration 0002; `totalAmount` sums remaining balances (docs/decisions/0102).
 */
import { creditorMessages, type Endpoints, messages } from "@dc/contract";
import { Money } from "@dc/domain";
import { NotFound } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { creditorColumns, presentCreditor } from "./creditor-json.ts";

const FINEST_EXPONENT = 4;

export const getCreditor: HandlerOf<Endpoints["getCreditor"]> = async ({ params, principal, services }) => {
  const creditorId = services.ids.decode("creditor", params.id);
  if (creditorId === undefined) throw new NotFound({ message: messages.creditorNotFound });
  const [row, totals] = await Promise.all([
    services.db
      .selectFrom("creditors")
      .select(creditorColumns)
      .where("id", "=", creditorId)
      .where("company_id", "=", principal.companyId)
      .executeTakeFirst(),
    services.db
      .selectFrom("creditor_debt_stats")
      .select((eb) => [
        "currency",
        eb.fn.sum<string>("debt_count").as("debts"),
        eb.fn.sum<string>("balance_minor").as("balance"),
      ])
      .where("company_id", "=", principal.companyId)
      .where("creditor_id", "=", creditorId)
      .groupBy("currency")
      .orderBy("currency")
      .execute(),
  ]);
  if (row === undefined) throw new NotFound({ message: messages.creditorNotFound });
  const byCurrency: Record<string, number> = {};
  let totalDebts = 0;
  // Summed exactly as integers at the finest exponent (4), then divided once: no float noise.
  let scaledTotal = 0;
  for (const total of totals) {
    const debts = Number(total.debts);
    totalDebts += debts;
    if (debts === 0) continue;
    const balance = Number(total.balance);
    byCurrency[total.currency] = Money.fromMinor(balance, total.currency);
    scaledTotal += balance * 10 ** (FINEST_EXPONENT - Money.exponent(total.currency));
  }
  const totalAmount = scaledTotal / 10 ** FINEST_EXPONENT;
  return {
    body: {
      error: false,
      message: creditorMessages.retrieved,
      data: {
        data: { ...presentCreditor(services.ids, row), totalDebts, totalAmount, totalAmountByCurrency: byCurrency },
      },
    },
  };
};
