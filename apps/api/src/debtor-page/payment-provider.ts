/**
 * The payment-provider adapter of the debtor page (docs/decisions/0672): a
 * Stripe-Checkout-compatible client. `createCheckout` posts
 * `/v1/checkout/sessions` (form-encoded, the secret key as bearer, an
 * `Idempotency-Key`) and answers the session's id and hosted URL; the
 * completion arrives later as a signed `checkout.session.completed` webhook
 * (stripe-webhook.ts). Sandbox companies use the sandbox provider instead,
 * whose checkout is a page of our own (sandbox-checkout.ts).
 */
export interface CheckoutRequest {
  readonly amountMinor: number;
  /** ISO 4217, upper case. */
  readonly currency: string;
  /** What the debtor pays for (the line item's name). */
  readonly description: string;
  readonly successUrl: string;
  readonly cancelUrl: string;
  /** Company and debt public ids: the webhook finds the debt by them. */
  readonly metadata: { readonly company_id: string; readonly debt_id: string };
  readonly idempotencyKey: string;
}

export interface CheckoutSession {
  readonly id: string;
  readonly url: string;
}

export class ProviderUnavailable extends Error {
  override readonly name = "ProviderUnavailable";
}

export interface StripeSettings {
  readonly baseUrl: string;
  readonly secretKey: string;
}

/** Stripe's form encoding of the session (bracketed keys). */
const sessionForm = (request: CheckoutRequest): URLSearchParams =>
  new URLSearchParams({
    mode: "payment",
    "line_items[0][quantity]": "1",
    "line_items[0][price_data][currency]": request.currency.toLowerCase(),
    "line_items[0][price_data][unit_amount]": String(request.amountMinor),
    "line_items[0][price_data][product_data][name]": request.description,
    success_url: request.successUrl,
    cancel_url: request.cancelUrl,
    client_reference_id: request.metadata.debt_id,
    "metadata[company_id]": request.metadata.company_id,
    "metadata[debt_id]": request.metadata.debt_id,
    "payment_intent_data[metadata][company_id]": request.metadata.company_id,
    "payment_intent_data[metadata][debt_id]": request.metadata.debt_id,
  });

/** Creates a Checkout Session; throws `ProviderUnavailable` when the provider cannot be reached or refuses. */
export const createStripeCheckout = async (settings: StripeSettings, request: CheckoutRequest): Promise<CheckoutSession> => {
  let response: Response;
  try {
    response = await fetch(`${settings.baseUrl}/v1/checkout/sessions`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${settings.secretKey}`,
        "content-type": "application/x-www-form-urlencoded",
        "idempotency-key": request.idempotencyKey,
      },
      body: sessionForm(request).toString(),
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    throw new ProviderUnavailable(`the payment provider could not be reached: ${String(error)}`);
  }
  const body = (await response.json().catch(() => null)) as { id?: unknown; url?: unknown } | null;
  if (!response.ok || typeof body?.id !== "string" || typeof body.url !== "string") {
    throw new ProviderUnavailable(`the payment provider answered ${response.status}`);
  }
  return { id: body.id, url: body.url };
};
