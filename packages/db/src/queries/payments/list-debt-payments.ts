/**
 * A page of the payments recorded on a company's debt, newest first, with
 * their total, plus, for a grouped debt (`groupId`), the installment
 * payments recorded on any debt of its group (the shared plan debt). Direct
 * payments stay visible only on the debt they paid. Payments outlive deleted
 * debts, so they are matched by key, never joined to debts.
 */
import type { Db } from "../executor.ts";
import type { Keyset } from "../keyset.ts";
import { pageOfRows, type PageRequest } from "../page-of-rows.ts";

/** Newest first, then by id (time-ordered uuids: the most recently recorded first); `payments_debt_idx` serves it. */
export const paymentOrder: Keyset = [
  { column: "p.paid_at", direction: "desc", kind: "instant" },
  { column: "p.id", direction: "desc", kind: "uuid" },
];

export const listDebtPayments = (
  db: Db,
  debt: {
    readonly companyId: number;
    readonly debtId: number;
    readonly groupId: number | null;
    readonly externalPaymentId?: string | undefined;
  },
  page: PageRequest,
) => {
  const { companyId, debtId, groupId } = debt;
  let payments = db
    .selectFrom("payments as p")
    .where("p.company_id", "=", companyId)
    .where((eb) =>
      groupId === null
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
                  .where("g.group_id", "=", groupId),
              ),
            ]),
          ]),
    );
  if (debt.externalPaymentId !== undefined)
    payments = payments.where("p.external_payment_id", "=", debt.externalPaymentId);
  return pageOfRows(
    db,
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
        ]),
    paymentOrder,
    page,
  );
};
