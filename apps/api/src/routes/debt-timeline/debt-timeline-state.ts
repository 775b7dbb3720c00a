/**
 * What the four debt-timeline operations share (docs/decisions/0622): the
 * debt of the path, locked for the write in its transaction (404 when it is
 * not the company's), the engine's view of its run read in that same
 * transaction, and the refusals of a debt with no run or a run that is over.
 */
import { debtTimelineErrorCodes, debtTimelineMessages, messages } from "@dc/contract";
import { type DbTransaction, type EnrollmentView, findEnrollmentView, lockDebt } from "@dc/db";
import { Conflict, NotFound } from "../../http/api-error.ts";
import type { AppServices } from "../../services.ts";

/** The debt's key from the path, or the contract's 404 for an undecodable id. */
export const debtKeyOf = (services: AppServices, id: string): number => {
  const debtId = services.ids.decode("debt", id);
  if (debtId === undefined) throw new NotFound({ message: messages.debtNotFound });
  return debtId;
};

/** Locks the company's debt `debtId` for this transaction; 404 when there is none. */
export const lockCompanyDebt = async (trx: DbTransaction, companyId: number, debtId: number) => {
  const debt = await lockDebt(trx, companyId, debtId);
  if (debt === undefined) throw new NotFound({ message: messages.debtNotFound });
  return debt;
};

export const notOnTimeline = () =>
  new Conflict({ errorCode: debtTimelineErrorCodes.notOnTimeline, message: debtTimelineMessages.notOnTimeline });

export const notRunning = () =>
  new Conflict({ errorCode: debtTimelineErrorCodes.notRunning, message: debtTimelineMessages.notRunning });

/** The run of the debt as the engine reads it now, in `db` (the write's transaction); 409 when it never ran. */
export const runOf = async (
  db: DbTransaction,
  services: AppServices,
  companyId: number,
  debtId: number,
): Promise<EnrollmentView> => {
  const view = await findEnrollmentView(db, { companyId, debtId, now: services.clock.now() });
  if (view === undefined) throw notOnTimeline();
  return view;
};
