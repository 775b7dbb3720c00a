/**
 * The message a claimed followup sends: its step rendered for the debt
 * (channels/render.ts), its recipient, and the idempotency key of its
 * attempt, `<followup public id>:<attempt>` (docs/decisions/0600). Its payment
 * link is the company's, or else the debtor page's (docs/decisions/0670). A step
 * whose template does not render gets a failed outcome instead, not
 * retryable: it would fail the same way again.
 */
import { debtPaymentLink, type DebtorLinkSigner } from "@dc/crypto";
import type { EventIds, SendContext } from "@dc/db";
import type { OutboundMessage, Outcome } from "../channels/channel-adapter.ts";
import { renderStep, TemplateError } from "../channels/render.ts";
import { letterPartsOf } from "../channels/letter.ts";
import { renderContextFor } from "../channels/render-context.ts";
import type { StepContext } from "./guard-input.ts";

/** The idempotency key a provider gets for a followup attempt. */
export const idempotencyKeyOf = (ids: EventIds, followupId: number, attempt: number): string =>
  `${ids.encode("followup", followupId)}:${attempt}`;

/** The rendered message, or the failed outcome of a step that does not render. */
export const messageOf = (
  ids: EventIds,
  links: DebtorLinkSigner,
  context: SendContext,
  decoded: StepContext,
  recipient: string,
): { readonly message: OutboundMessage; readonly failure: Outcome | null } => {
  const { step } = decoded;
  const renderContext = renderContextFor(step, {
    civility: context.civility,
    firstname: context.firstname,
    lastname: context.lastname,
    debtor_company: context.debtor_company,
    country: context.country,
    postal_code: context.postal_code,
    phone: context.phone,
    amount_minor: context.amount_minor,
    balance_minor: context.balance_minor,
    currency: context.currency,
    due_date: context.due_date,
    // Signed at the company's clock (the sandbox clock for sandbox companies).
    payment_link: debtPaymentLink(context.payment_link, links, { companyId: context.company_id, debtId: context.debt_id }, context.now),
    invoice_reference: context.invoice_reference,
    object: context.object,
    creditor_name: context.creditor_name,
    company_name: context.company_name,
  });
  let rendered: { subject: string | null; body: string } = { subject: null, body: "" };
  let failure: Outcome | null = null;
  try {
    rendered = renderStep(step, renderContext);
  } catch (error) {
    if (!(error instanceof TemplateError)) throw error;
    failure = { status: "failed", retryable: false, error: `template_error: ${error.message}` };
  }
  return {
    message: {
      followupId: context.id,
      idempotencyKey: idempotencyKeyOf(ids, context.id, context.attempt),
      companyId: context.company_id,
      debtId: context.debt_id,
      channel: step.channel,
      recipient,
      subject: rendered.subject,
      body: rendered.body,
      configuration: step.configuration,
      at: context.now,
      senderName: context.company_name,
      language: renderContext.language,
      ...(step.channel === "postmail" ? { letter: letterPartsOf(context, renderContext) } : {}),
    },
    failure,
  };
};
