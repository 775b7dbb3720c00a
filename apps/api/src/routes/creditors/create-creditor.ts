/** POST /creditors: creates a creditor of the token's company (docs/decisions/0101). */
import { creditorMessages, type Endpoints } from "@dc/contract";
import { insertCreditor } from "@dc/db";
import type { HandlerOf } from "../../http/handler.ts";
import { presentCreditor } from "../../presenters/present-creditor.ts";
import { columnsOf } from "./creditor-fields.ts";

export const createCreditor: HandlerOf<Endpoints["createCreditor"]> = async ({
  body,
  principal,
  services,
  transaction,
}) => {
  const now = services.clock.now();
  return transaction(async (trx) => {
    const row = await insertCreditor(trx, {
      companyId: principal.companyId,
      name: body.name,
      fields: columnsOf(body),
      now,
    });
    return {
      body: { error: false as const, message: creditorMessages.created, data: presentCreditor(services.ids, row) },
    };
  });
};
