/**
 * GET /debts/{id}/payments (docs/decisions/0112): a page of the payments recorded on
 * the debt, plus, for a grouped debt, the installment payments recorded on
 * any debt of its group (the shared plan debt). Direct payments stay visible
 * only on the debt they paid. Payments outlive deleted debts, so they are
 * matched by key, never joined to debts.
 */
import type { Endpoints } from "@dc/contract";
import { messages } from "@dc/contract";
import { Money } from "@dc/domain";
import { sql } from "kysely";
import { NotFound } from "../../http/api-error.ts";
import { pageOfRows } from "../../http/page-of-rows.ts";
import type { HandlerOf } from "../../http/handler.ts";

export const listDebtPayments: HandlerOf<Endpoints["listDebtPayments"]> = async ({
  params,
  query,
  principal,
  services,
}) => {
  const { companyId } = principal;
  const debtId = services.ids.decode("debt", params.id);
  if (debtId === undefined) throw new NotFound({ message: messages.debtNotFound });
  const debt = await services.db
    .selectFrom("debts")
    .select(["id", "group_id"])
    .where("id", "=", debtId)
    .where("company_id", "=", companyId)
    .executeTakeFirst();
  if (debt === undefined) throw new NotFound({ message: messages.debtNotFound });
  let payments = services.db
    .selectFrom("payments as p")
    .where("p.company_id", "=", companyId)
    .where((eb) =>
      debt.group_id === null
        ? eb("p.debt_id", "=", debtId)
        : eb.or([
            eb("p.debt_id", "=", debtId),
            eb.and([
              eb("p.installment_id", "is not", null),
              eb(
                "p.debt_id",
                "in",
                eb
                  .selectFrom("debts as g")
                  .select("g.id")
                  .where("g.company_id", "=", companyId)
                  .where("g.group_id", "=", debt.group_id),
              ),
            ]),
          ]),
    );
  if (query.external_payment_id !== undefined)
    payments = payments.where("p.external_payment_id", "=", query.external_payment_id);
  const { rows, pagination } = await pageOfRows(
    services.db,
    payments,
    (filtered) =>
      filtered
        .select([
          "p.id",
          "p.debt_id",
          "p.installment_id",
          "p.external_payment_id",
          "p.provider",
          "p.amount_minor",
          "p.currency",
          "p.status",
          "p.paid_at",
        ])
        .orderBy("p.paid_at", "desc")
        .orderBy(sql`p.id`, "desc"),
    query,
  );
  return {
    body: {
      error: false,
      data: rows.map((row) => ({
        id: row.id,
        debt_id: services.ids.encode("debt", row.debt_id),
        installment_id: row.installment_id === null ? null : services.ids.encode("installment", row.installment_id),
        external_payment_id: row.external_payment_id,
        provider: row.provider,
        amount: Money.fromMinor(row.amount_minor, row.currency),
        currency: row.currency,
        status: row.status,
        paid_at: row.paid_at,
      })),
      pagination,
    },
  };
};
