/** POST /creditors: creates a creditor of the token's company (docs/decisions/0101). */
import { creditorMessages, type Endpoints } from "@dc/contract";
import type { HandlerOf } from "../../http/handler.ts";
import { columnsOf, creditorColumns, presentCreditor } from "./creditor-json.ts";

export const createCreditor: HandlerOf<Endpoints["createCreditor"]> = async ({
  body,
  principal,
  services,
  transaction,
}) => {
  const now = services.clock.now();
  return transaction(async (trx) => {
    const row = await trx
      .insertInto("creditors")
      .values({
        ...columnsOf(body),
        name: body.name,
        company_id: principal.companyId,
        created_at: now,
        updated_at: now,
      })
      .returning(creditorColumns)
      .executeTakeFirstOrThrow();
    return {
      body: { error: false as const, message: creditorMessages.created, data: presentCreditor(services.ids, row) },
    };
  });
};
