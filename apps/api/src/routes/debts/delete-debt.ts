/**
 * DELETE /debts/{id}: permanent. Followups, requests and detections go with
 * it through their foreign keys, and so do its plans and their installments
 * (decision 0367); payments have no foreign key to debts and stay for
 * accounting, their installment cleared. A debt managed by a
 * campaign's snapshots is 403 (docs/decisions/0108): the next snapshot owns
 * it, and settles it when it is omitted. `debt.deleted` is recorded in the
 * delete's transaction, its payload read before the row goes.
 */
import { debtMessages, type Endpoints, messages } from "@dc/contract";
import { deleteDebt as deleteCompanyDebt, deletedDebtEventData, lockDebtForDelete, recordEvent } from "@dc/db";
import { AccessDenied, NotFound } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";

export const deleteDebt: HandlerOf<Endpoints["deleteDebt"]> = async ({ params, principal, services }) => {
  const debtId = services.ids.decode("debt", params.id);
  if (debtId === undefined) throw new NotFound({ message: debtMessages.notFoundOrInvalid });
  const { companyId } = principal;
  const now = services.clock.now();
  await services.db.transaction().execute(async (trx) => {
    const debt = await lockDebtForDelete(trx, companyId, debtId);
    if (debt === undefined) throw new NotFound({ message: debtMessages.notFoundOrInvalid });
    if (debt.campaign_id !== null) throw new AccessDenied({ message: messages.debtAccessDenied });
    const data = (await deletedDebtEventData(trx, services.ids, companyId, [debtId], now)).get(debtId);
    if (data === undefined) throw new Error(`debt ${debtId} is not readable before its delete`);
    await deleteCompanyDebt(trx, companyId, debtId);
    await recordEvent(trx, { companyId, type: "debt.deleted", data, occurredAt: now });
  });
  return { body: { error: false, message: debtMessages.deleted } };
};
