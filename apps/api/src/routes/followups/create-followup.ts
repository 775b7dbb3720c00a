/**
 * POST /followups: records a followup on a debt of the company, bumps the
 * debt's `followups_count`, charges credits when it is recorded executed and
 * records `followup.created`, all in one transaction.
 */
import { type Endpoints, followupMessages, messages } from "@dc/contract";
import { addFollowupCount, debtExistsAnywhere, insertFollowup } from "@dc/db";
import { AccessDenied, NotFound } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { chargeFor, recordCharge } from "./charge-credits.ts";
import { recordFollowupEvent } from "./followup-events.ts";
import { followupPresenter } from "../../presenters/present-followup.ts";

export const createFollowup: HandlerOf<Endpoints["createFollowup"]> = async ({
  body,
  principal,
  services,
  ctx,
  transaction,
}) => {
  const debtId = services.ids.decode("debt", body.debt_id);
  if (debtId === undefined) throw new NotFound({ message: messages.debtNotFound });
  const now = services.clock.now();
  const charge = chargeFor({ status: body.status, type: body.type, durationMs: body.duration_ms }, false, now);

  return transaction(async (trx) => {
    const debt = await addFollowupCount(trx, principal.companyId, debtId);
    if (debt === undefined) {
      // The one lookup across companies: the contract answers 403 for a debt of
      // another company and 404 for no debt at all (docs/decisions/0150).
      throw !(await debtExistsAnywhere(trx, debtId))
        ? new NotFound({ message: messages.debtNotFound })
        : new AccessDenied({ message: messages.debtAccessDenied });
    }
    const inserted = await insertFollowup(trx, {
      company_id: principal.companyId,
      debt_id: debtId,
      status: body.status,
      type: body.type,
      call_date: body.call_date ?? null,
      scheduled_at: body.scheduled_at ?? null,
      summary: body.summary ?? null,
      notes: body.notes ?? null,
      call_id: body.call_id ?? null,
      audio_object_key: body.audio_url ?? null,
      duration_ms: body.duration_ms ?? null,
      disconnection_reason: body.disconnection_reason ?? null,
      direction: body.direction ?? null,
      phone_number_used: body.phone_number_used ?? null,
      is_retry: body.is_retry,
      processed_at: charge.processed_at ?? null,
      credits_charged: charge.credits_charged ?? 0,
      created_at: now,
      updated_at: now,
    });
    await recordFollowupEvent(trx, services.ids, principal.companyId, "followup.created", inserted.id, now);
    // Last: the company's balance row stays locked until commit.
    await recordCharge(trx, {
      companyId: principal.companyId,
      followupId: inserted.id,
      credits: charge.credits_charged ?? 0,
      now,
    });
    return {
      body: {
        error: false as const,
        message: followupMessages.created,
        data: followupPresenter(services, ctx)(inserted),
      },
    };
  });
};
