/**
 * GET /debts/{id}/payments (docs/decisions/0112): a page of the payments recorded on
 * the debt, plus, for a grouped debt, the installment payments recorded on
 * any debt of its group (the shared plan debt); see `listDebtPayments`.
 */
import type { Endpoints } from "@dc/contract";
import { messages } from "@dc/contract";
import { findDebtKey, listDebtPayments as listPaymentsOfDebt, paymentOrder } from "@dc/db";
import { NotFound } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { listWalk } from "../../http/list-walk.ts";
import { presentPayment } from "../../presenters/present-payment.ts";

export const listDebtPayments: HandlerOf<Endpoints["listDebtPayments"]> = async ({
  params,
  query,
  principal,
  services,
}) => {
  const { companyId } = principal;
  const debtId = services.ids.decode("debt", params.id);
  if (debtId === undefined) throw new NotFound({ message: messages.debtNotFound });
  const debt = await findDebtKey(services.db, companyId, debtId);
  if (debt === undefined) throw new NotFound({ message: messages.debtNotFound });
  const walk = listWalk(
    services,
    { companyId, list: "payments", filters: { debtId, externalPaymentId: query.external_payment_id }, keyset: paymentOrder },
    query,
  );
  const page = await listPaymentsOfDebt(
    services.db,
    { companyId, debtId, groupId: debt.group_id, externalPaymentId: query.external_payment_id },
    walk.request,
  );
  return {
    body: {
      error: false,
      data: page.rows.map((row) => presentPayment(services.ids, row)),
      pagination: walk.pagination(page),
    },
  };
};
