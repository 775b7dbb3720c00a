/**
 * PUT and PATCH /followups/{id}: updates any subset of a followup's fields.
 * The row is locked while the charge rule runs, so two concurrent updates
 * to an executed status charge once. `followup.updated` is recorded in the
 * same transaction.
 */
import { type Endpoints, followupMessages } from "@dc/contract";
import { type FollowupUpdate, lockFollowup, updateFollowup as updateCompanyFollowup } from "@dc/db";
import type { Followup } from "@dc/domain";
import { NotFound, ValidationFailed } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { chargeFor, recordCharge } from "./charge-credits.ts";
import { recordFollowupEvent } from "./followup-events.ts";
import { followupPresenter } from "../../presenters/present-followup.ts";

type Input = Parameters<HandlerOf<Endpoints["updateFollowup"]>>[0];
type Body = Input["body"];

/** The columns a body sets; `audio_url` is stored as the media's object key. */
const changedColumns = (body: Body): FollowupUpdate => {
  const { audio_url, ...rest } = body;
  const columns: FollowupUpdate = {};
  for (const [name, value] of Object.entries(rest)) {
    if (value !== undefined) Object.assign(columns, { [name]: value });
  }
  if (audio_url !== undefined) columns.audio_object_key = audio_url;
  return columns;
};

export const updateFollowup: HandlerOf<Endpoints["updateFollowup"]> = async ({
  params,
  body,
  principal,
  services,
  ctx,
}) => {
  const followupId = services.ids.decode("followup", params.id);
  if (followupId === undefined) throw new NotFound({ message: followupMessages.notFound });
  const changes = changedColumns(body);
  if (Object.keys(changes).length === 0) {
    throw new ValidationFailed({ details: { body: "must set at least one field" } });
  }
  const now = services.clock.now();

  const row = await services.db.transaction().execute(async (trx) => {
    const current = await lockFollowup(trx, principal.companyId, followupId);
    if (current === undefined) throw new NotFound({ message: followupMessages.notFound });
    const charge = chargeFor(
      {
        status: body.status ?? (current.status as Followup.FollowupStatus),
        type: body.type ?? (current.type as Followup.FollowupType),
        durationMs: body.duration_ms === undefined ? current.duration_ms : body.duration_ms,
      },
      current.processed_at !== null,
      now,
    );
    const updated = await updateCompanyFollowup(trx, principal.companyId, followupId, {
      ...changes,
      ...charge,
      updated_at: now,
    });
    await recordFollowupEvent(trx, services.ids, principal.companyId, "followup.updated", followupId, now);
    // Last: the company's balance row stays locked until commit.
    await recordCharge(trx, { companyId: principal.companyId, followupId, credits: charge.credits_charged ?? 0, now });
    return updated;
  });

  return {
    body: { error: false, message: followupMessages.updated, data: followupPresenter(services, ctx)(row) },
  };
};
