/**
 * PUT and PATCH /creditors/{id}: both update any subset of the ten writable
 * fields (contract 4.4 and 9.4); absent fields are unchanged, `null` clears.
 */
import { creditorMessages, type Endpoints, messages } from "@dc/contract";
import { updateCreditor as updateCompanyCreditor } from "@dc/db";
import { NotFound, ValidationFailed } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { presentCreditor } from "../../presenters/present-creditor.ts";
import { columnsOf } from "./creditor-fields.ts";

export const updateCreditor: HandlerOf<Endpoints["updateCreditor"]> = async ({ params, body, principal, services }) => {
  const creditorId = services.ids.decode("creditor", params.id);
  if (creditorId === undefined) throw new NotFound({ message: messages.creditorNotFound });
  const fields = columnsOf(body);
  const { name, ...columns } = fields;
  if (name === undefined && Object.keys(columns).length === 0) {
    throw new ValidationFailed({ details: { body: "must set at least one field" } });
  }
  const row = await updateCompanyCreditor(services.db, {
    companyId: principal.companyId,
    creditorId,
    fields,
    now: services.clock.now(),
  });
  if (row === undefined) throw new NotFound({ message: messages.creditorNotFound });
  return { body: { error: false, message: creditorMessages.updated, data: presentCreditor(services.ids, row) } };
};
