/** GET /followups/{id}: one followup of the company, media links freshly signed. */
import { type Endpoints, followupMessages } from "@dc/contract";
import { NotFound } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { followupColumns, followupPresenter } from "./present-followup.ts";

export const getFollowup: HandlerOf<Endpoints["getFollowup"]> = async ({ params, principal, services, ctx }) => {
  const followupId = services.ids.decode("followup", params.id);
  if (followupId === undefined) throw new NotFound({ message: followupMessages.notFound });
  const row = await services.db
    .selectFrom("followups")
    .select(followupColumns)
    .where("id", "=", followupId)
    .where("company_id", "=", principal.companyId)
    .executeTakeFirst();
  if (row === undefined) throw new NotFound({ message: followupMessages.notFound });
  return {
    body: { error: false, message: followupMessages.retrieved, data: followupPresenter(services, ctx)(row) },
  };
};
