/** GET /debtors/{id}: one debtor of the company with its debt ids. */
import { debtorMessages, type Endpoints } from "@dc/contract";
import { findDebtor } from "@dc/db";
import { NotFound } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { presentDebtor } from "../../presenters/present-debtor.ts";

export const getDebtor: HandlerOf<Endpoints["getDebtor"]> = async ({ params, principal, services }) => {
  const debtorId = services.ids.decode("debtor", params.id);
  if (debtorId === undefined) throw new NotFound({ message: debtorMessages.notFound });
  const row = await findDebtor(services.db, principal.companyId, debtorId);
  if (row === undefined) throw new NotFound({ message: debtorMessages.notFound });
  return { body: { error: false, message: debtorMessages.retrieved, data: presentDebtor(services.ids, row) } };
};
