/** GET /followups/{id}: one followup of the company, media links freshly signed. */
import { type Endpoints, followupMessages } from "@dc/contract";
import { findFollowup } from "@dc/db";
import { NotFound } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { followupPresenter } from "../../presenters/present-followup.ts";

export const getFollowup: HandlerOf<Endpoints["getFollowup"]> = async ({ params, principal, services, ctx }) => {
  const followupId = services.ids.decode("followup", params.id);
  if (followupId === undefined) throw new NotFound({ message: followupMessages.notFound });
  const row = await findFollowup(services.db, principal.companyId, followupId);
  if (row === undefined) throw new NotFound({ message: followupMessages.notFound });
  return {
    body: { error: false, message: followupMessages.retrieved, data: followupPresenter(services, ctx)(row) },
  };
};
