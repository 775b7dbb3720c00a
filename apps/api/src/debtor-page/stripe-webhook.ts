/**
 * POST /payments/stripe/webhook: the payment provider's notifications
 * (docs/decisions/0672). The signature is checked over the raw body before
 * anything is decoded; a forged one writes nothing. A paid
 * `checkout.session.completed` records the payment on the debt its
 * metadata names; its `external_payment_id` (the payment intent, or the
 * session id) makes a replay record nothing more.
 */
import { PAYMENT_WEBHOOK_BYTES, StripeEvent, stripeWebhookMessages as answers } from "@dc/contract";
import { Money } from "@dc/domain";
import { Either, Schema } from "effect";
import type { Context } from "koa";
import { envelope } from "../http/api-error.ts";
import { readRawBody } from "../http/read-body.ts";
import type { AppServices } from "../services.ts";
import { debtLinkSigner } from "./links.ts";
import { recordCompletedPayment } from "./record-payment.ts";
import { verifyStripeSignature } from "./stripe-signature.ts";

const decodeEvent = Schema.decodeUnknownEither(Schema.parseJson(StripeEvent));

/** Answers in the API's envelopes (the contract's `receiveStripeWebhook`). */
const answer = (ctx: Context, status: number, message: string) => {
  ctx.status = status;
  ctx.body = status >= 400 ? envelope(status, message) : { error: false, message };
};

export const receiveStripeWebhook = (services: AppServices) => async (ctx: Context) => {
  const stripe = services.config.stripe;
  if (stripe === undefined) return answer(ctx, 404, answers.notConfigured);
  // A body over the limit is the API's 413 envelope, from the error middleware.
  const raw = await readRawBody(ctx.req, PAYMENT_WEBHOOK_BYTES);
  const header = ctx.get("stripe-signature");
  const checked = header === "" ? "invalid" : verifyStripeSignature(stripe.webhookSecret, header, raw, services.clock.now());
  if (header === "" || checked === "stale") return answer(ctx, 400, answers.missingSignature);
  if (checked === "invalid") return answer(ctx, 403, answers.signatureMismatch);
  const event = decodeEvent(raw.toString("utf8"));
  if (Either.isLeft(event)) return answer(ctx, 400, answers.notEvent);
  const session = event.right.data.object;
  if (event.right.type !== "checkout.session.completed" || session.payment_status !== "paid") {
    return answer(ctx, 200, answers.ignored);
  }
  const companyId = services.ids.decode("company", session.metadata?.["company_id"] ?? "");
  const debtId = services.ids.decode("debt", session.metadata?.["debt_id"] ?? "");
  const currency = session.currency?.toUpperCase();
  const amount = session.amount_total;
  if (companyId === undefined || debtId === undefined) return answer(ctx, 404, answers.unknownDebt);
  if (currency === undefined || !Money.isCurrencyCode(currency) || amount === undefined || !Number.isSafeInteger(amount) || amount <= 0) {
    return answer(ctx, 400, answers.noAmount);
  }
  const recorded = await recordCompletedPayment(services, debtLinkSigner(services, ctx), {
    companyId,
    debtId,
    provider: "stripe",
    externalPaymentId: session.payment_intent ?? session.id,
    amountMinor: amount,
    currency,
    paidAt: services.clock.now(),
  }).catch((error: unknown) => {
    // The debt was deleted between the checkout and its notification: nothing to record it on.
    if (error instanceof Error && /violates foreign key/.test(error.message)) return undefined;
    throw error;
  });
  if (recorded === undefined) return answer(ctx, 404, answers.unknownDebt);
  return answer(ctx, 200, recorded ? answers.recorded : answers.alreadyRecorded);
};
