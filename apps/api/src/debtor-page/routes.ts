/**
 * The debtor page (docs/decisions/0670-0674): `GET /pay/{token}` shows the
 * identity check, then the debt; `POST /pay/{token}` takes every form of it
 * (`action`: verify, pay, plan, dispute, hardship, preferences, and the
 * sandbox checkout's sandbox_complete and sandbox_cancel). Every post must
 * carry the browser's anti-forgery token; every action but `verify` needs a
 * passed identity check. Forms answer 303 back to the page, which shows
 * what happened (`?done=`). The dispute form posts as multipart with an
 * optional attachment (docs/decisions/0674), stored with the dispute.
 */
import { randomBytes } from "node:crypto";
import { saveDebtorPreferences } from "@dc/db";
import { Channel, DebtStatus, DisputeAttachment, Money, PlanProposal } from "@dc/domain";
import { Either } from "effect";
import type { Context } from "koa";
import { publicBaseUrl } from "../http/public-base-url.ts";
import { exhaustedSubject, failureRules, recordFailure, subjectKey } from "../oauth/failure-throttle.ts";
import type { AppServices } from "../services.ts";
import { identityMatches, secondFactOf } from "./identity.ts";
import { debtLinkSigner } from "./links.ts";
import { createStripeCheckout, ProviderUnavailable } from "./payment-provider.ts";
import { type PageState, pageState } from "./page-state.ts";
import { sendDebtorPage, sendSeeOther } from "./page-response.ts";
import { recordCompletedPayment } from "./record-payment.ts";
import { type AttachmentProblem, readPageForm } from "./read-page-form.ts";
import { recordDebtorRequest } from "./record-request.ts";
import { formToken, formTokenMatches, hasSession, startSession } from "./session.ts";
import { debtPage, messagePage, sandboxCheckoutPage, verifyPage } from "./views.ts";

type Found = Extract<PageState, { kind: "found" }>;

const MESSAGE_MAX = 2_000;
const disputeReasons = ["not_mine", "already_paid", "wrong_amount", "goods_or_service", "other"] as const;

const localeOf = (state: Found) => (state.shell.language === "fr" ? "fr-FR" : "en-GB");
const money = (state: Found, minor: number) => {
  try {
    return new Intl.NumberFormat(localeOf(state), { style: "currency", currency: state.view.currency }).format(
      Money.fromMinor(minor, state.view.currency),
    );
  } catch {
    return `${Money.format(minor, state.view.currency)} ${state.view.currency}`;
  }
};
const longDate = (state: Found, date: string) =>
  new Intl.DateTimeFormat(localeOf(state), { dateStyle: "long", timeZone: "UTC" }).format(new Date(`${date.slice(0, 10)}T00:00:00Z`));

const today = (state: Found) => state.view.now.toISOString().slice(0, 10);
const isOpen = (state: Found) =>
  state.view.balance_minor > 0 && state.view.status !== DebtStatus.paid && state.view.status !== DebtStatus.cancelled;
/** The least a payment may be: one unit of the currency, or the whole balance when less is owed. */
const minimumMinor = (state: Found) => Math.min(state.view.balance_minor, 10 ** Money.exponent(state.view.currency));
const canPay = (services: AppServices, state: Found) => isOpen(state) && (state.view.company_sandbox || services.config.stripe !== undefined);
const major = (state: Found, minor: number) => Money.fromMinor(minor, state.view.currency).toFixed(Money.exponent(state.view.currency));

const doneNotice = (state: Found, done: string | undefined): string | undefined => {
  const t = state.texts;
  switch (done) {
    case "paid":
      return t.paymentThanks;
    case "cancelled":
      return t.paymentCancelled;
    case "plan":
      return t.planSent;
    case "dispute":
      return t.disputeSent;
    case "hardship":
      return t.hardshipSent;
    case "preferences":
      return t.prefsSaved;
    default:
      return undefined;
  }
};

/** What the dispute form sent, shown again with its error when its attachment is refused. */
interface DisputeDraft {
  readonly reason: string | undefined;
  readonly message: string | undefined;
  readonly error: string;
}

const showDebt = (
  ctx: Context,
  services: AppServices,
  state: Found,
  status: number,
  extra: { notice?: string; error?: string; dispute?: DisputeDraft },
) => {
  const { view } = state;
  const limits = PlanProposal.limitsOf(view.plan_rules);
  const firstDate = new Date(view.now.getTime() + 7 * 86_400_000).toISOString().slice(0, 10);
  sendDebtorPage(
    ctx,
    services,
    status,
    debtPage(state.shell, {
      csrf: formToken(services, state.browser, state.token),
      creditor: view.creditor_name,
      object: view.object,
      reference: view.invoice_reference,
      balance: money(state, view.balance_minor),
      original: money(state, view.amount_minor),
      dueDate: view.due_date === null ? null : longDate(state, view.due_date),
      paid: !isOpen(state),
      installments: view.installments.map((item) => ({
        date: longDate(state, item.payment_date),
        amount: money(state, item.amount_minor),
        status: item.status,
      })),
      payments: view.payments.map((item) => ({ date: longDate(state, item.paid_at), amount: money(state, item.amount_minor) })),
      pay: canPay(services, state)
        ? {
            min: major(state, minimumMinor(state)),
            max: major(state, view.balance_minor),
            defaultAmount: major(state, view.balance_minor),
            step: major(state, 1),
          }
        : null,
      plan: view.installments.length > 0 || view.open_requests.includes("payment_plan")
        ? null
        : { max: limits.maxInstallments, min: money(state, limits.minInstallmentMinor), days: limits.maxDays, firstDate },
      openRequests: view.open_requests,
      refused: view.opt_outs,
      quiet: view.quiet_start === null || view.quiet_end === null ? null : { start: view.quiet_start, end: view.quiet_end },
      ...extra,
    }),
  );
};

const showVerify = (ctx: Context, services: AppServices, state: Found, status: number, error?: string) =>
  sendDebtorPage(
    ctx,
    services,
    status,
    verifyPage(state.shell, {
      csrf: formToken(services, state.browser, state.token),
      second: secondFactOf(state.view),
      ...(error === undefined ? {} : { error }),
    }),
  );

const refuseLink = (ctx: Context, services: AppServices, state: Exclude<PageState, Found>) =>
  sendDebtorPage(
    ctx,
    services,
    state.kind === "expired" ? 410 : 404,
    messagePage(state.shell, state.kind === "expired" ? state.shell.texts.expiredLink : state.shell.texts.invalidLink),
  );

const backTo = (ctx: Context, services: AppServices, state: Found, done: string) =>
  sendSeeOther(ctx, services, `${state.shell.path}?lang=${state.shell.language}&done=${done}`);

/** GET /pay/{token}. */
export const showDebtorPage = (services: AppServices) => async (ctx: Context & { params: { token: string } }) => {
  const lang = typeof ctx.query["lang"] === "string" ? ctx.query["lang"] : undefined;
  const state = await pageState(ctx, services, ctx.params.token, lang);
  if (state.kind !== "found") return refuseLink(ctx, services, state);
  if (!hasSession(ctx, services, state.browser, state.target)) return showVerify(ctx, services, state, 200);
  const checkout = typeof ctx.query["checkout"] === "string" ? ctx.query["checkout"] : undefined;
  if (checkout !== undefined && state.view.company_sandbox) {
    const session = sandboxSession(services, state, checkout);
    if (session !== undefined) {
      return sendDebtorPage(
        ctx,
        services,
        200,
        sandboxCheckoutPage(state.shell, {
          csrf: formToken(services, state.browser, state.token),
          session: checkout,
          amount: money(state, session.amountMinor),
        }),
      );
    }
  }
  const done = typeof ctx.query["done"] === "string" ? ctx.query["done"] : undefined;
  const notice = doneNotice(state, done);
  showDebt(ctx, services, state, 200, notice === undefined ? {} : { notice });
};

/** A sandbox checkout session: `<nonce>.<amount minor>.<mac>`, the MAC binding it to the link. */
const sandboxSessionOf = (services: AppServices, state: Found, amountMinor: number): string => {
  const nonce = randomBytes(12).toString("base64url");
  return `${nonce}.${amountMinor}.${formToken(services, `sandbox\n${nonce}\n${amountMinor}`, state.token)}`;
};
const sandboxSession = (services: AppServices, state: Found, text: string) => {
  const [nonce = "", amount = "", mac] = text.split(".");
  if (!/^[A-Za-z0-9_-]{16}$/.test(nonce) || !/^\d{1,15}$/.test(amount)) return undefined;
  if (!formTokenMatches(services, `sandbox\n${nonce}\n${amount}`, state.token, mac)) return undefined;
  return { id: `cs_sandbox_${nonce}`, amountMinor: Number(amount) };
};

const attachmentMegabytes = DisputeAttachment.maxBytes / (1024 * 1024);

/** The status and the words of a refused attachment: the page names the field. */
const attachmentRefusal = (state: Found, problem: AttachmentProblem) => {
  const t = state.texts;
  switch (problem) {
    case "too_large":
      return { status: 413, error: t.attachmentTooLarge(attachmentMegabytes) };
    case "type":
      return { status: 400, error: t.attachmentType };
    case "count":
      return { status: 400, error: t.attachmentCount };
  }
};

const text = (value: string | undefined, max: number) => {
  const trimmed = value?.trim() ?? "";
  return trimmed === "" ? null : trimmed.slice(0, max);
};

/** POST /pay/{token}. */
export const submitDebtorPage = (services: AppServices) => async (ctx: Context & { params: { token: string } }) => {
  const form = await readPageForm(ctx);
  // Reading stopped short of the end of the post: the rest is not read, the connection not kept.
  if (form?.unread === true) ctx.set("Connection", "close");
  const fields = form?.fields;
  const state = await pageState(ctx, services, ctx.params.token, fields?.["lang"]);
  if (state.kind !== "found") return refuseLink(ctx, services, state);
  if (fields === undefined) return sendDebtorPage(ctx, services, 400, messagePage(state.shell, state.texts.forbidden));
  if (!formTokenMatches(services, state.browser, state.token, fields["csrf_token"])) {
    return sendDebtorPage(ctx, services, 403, messagePage(state.shell, state.texts.forbidden));
  }
  const action = fields["action"];
  if (action === "verify") return verify(ctx, services, state, fields);
  if (!hasSession(ctx, services, state.browser, state.target)) return showVerify(ctx, services, state, 401);
  const { companyId, debtId } = state.target;
  const now = services.clock.now();
  const t = state.texts;
  const bad = (field: string) => showDebt(ctx, services, state, 400, { error: t.badInput(field) });
  if (form?.problem !== undefined) {
    // Nothing is written: a file only ever comes with a dispute, shown again as it was sent.
    const refusal = attachmentRefusal(state, form.problem);
    return showDebt(ctx, services, state, refusal.status, {
      error: refusal.error,
      dispute: { reason: fields["reason"], message: fields["message"], error: refusal.error },
    });
  }
  switch (action) {
    case "pay": {
      if (!canPay(services, state)) return showDebt(ctx, services, state, 409, { error: t.payUnavailable });
      const amount = Number(fields["amount"]);
      const minor = Number.isFinite(amount) ? Money.toMinor(amount, state.view.currency) : undefined;
      if (minor === undefined || Either.isLeft(minor) || minor.right < minimumMinor(state) || minor.right > state.view.balance_minor) {
        return bad(t.payAmount);
      }
      const back = `${publicBaseUrl(services, ctx)}${state.shell.path}?lang=${state.shell.language}`;
      if (state.view.company_sandbox) {
        return sendSeeOther(ctx, services, `${state.shell.path}?lang=${state.shell.language}&checkout=${sandboxSessionOf(services, state, minor.right)}`);
      }
      const stripe = services.config.stripe!;
      try {
        const session = await createStripeCheckout(stripe, {
          amountMinor: minor.right,
          currency: state.view.currency,
          description: state.view.object ?? state.view.invoice_reference ?? state.view.creditor_name,
          successUrl: `${back}&done=paid`,
          cancelUrl: `${back}&done=cancelled`,
          metadata: { company_id: services.ids.encode("company", companyId), debt_id: services.ids.encode("debt", debtId) },
          idempotencyKey: `debtor-page:${state.token}:${randomBytes(12).toString("base64url")}`,
        });
        return sendSeeOther(ctx, services, session.url);
      } catch (error) {
        if (!(error instanceof ProviderUnavailable)) throw error;
        services.logger.warn({ err: error }, "payment provider unavailable");
        return showDebt(ctx, services, state, 502, { error: t.payUnavailable });
      }
    }
    case "sandbox_complete": {
      const session = state.view.company_sandbox ? sandboxSession(services, state, fields["session"] ?? "") : undefined;
      if (session === undefined) return bad(t.sandboxTitle);
      await recordCompletedPayment(services, debtLinkSigner(services, ctx), {
        companyId,
        debtId,
        provider: "sandbox",
        externalPaymentId: session.id,
        amountMinor: Math.min(session.amountMinor, state.view.balance_minor),
        currency: state.view.currency,
        paidAt: state.view.now,
      });
      return backTo(ctx, services, state, "paid");
    }
    case "sandbox_cancel":
      return backTo(ctx, services, state, "cancelled");
    case "plan": {
      const count = Number(fields["count"]);
      const firstDate = fields["first_date"] ?? "";
      if (!Number.isInteger(count)) return bad(t.planCount);
      if (!/^\d{4}-\d{2}-\d{2}$/.test(firstDate) || Number.isNaN(Date.parse(firstDate))) return bad(t.planFirst);
      const proposal = PlanProposal.propose(
        state.view.balance_minor,
        count,
        firstDate,
        today(state),
        PlanProposal.limitsOf(state.view.plan_rules),
      );
      if (Either.isLeft(proposal)) return showDebt(ctx, services, state, 422, { error: t.planRefused[proposal.left.reason] ?? "" });
      await recordDebtorRequest(services, {
        companyId,
        debtId,
        type: "payment_plan",
        message: null,
        content: { installments: proposal.right },
        now: state.view.now,
      });
      return backTo(ctx, services, state, "plan");
    }
    case "dispute": {
      const reason = disputeReasons.find((code) => code === fields["reason"]);
      if (reason === undefined) return bad(t.disputeReason);
      await recordDebtorRequest(services, {
        companyId,
        debtId,
        type: "portal_dispute",
        message: text(fields["message"], MESSAGE_MAX),
        content: { reason },
        now: state.view.now,
        attachment: form?.attachment,
      });
      return backTo(ctx, services, state, "dispute");
    }
    case "hardship":
      await recordDebtorRequest(services, {
        companyId,
        debtId,
        type: "hardship",
        message: text(fields["message"], MESSAGE_MAX),
        content: {},
        now: state.view.now,
      });
      return backTo(ctx, services, state, "hardship");
    case "preferences": {
      const start = text(fields["quiet_start"], 5);
      const end = text(fields["quiet_end"], 5);
      const valid = (value: string | null) => value === null || /^([01]\d|2[0-3]):[0-5]\d$/.test(value);
      if (!valid(start)) return bad(t.quietFrom);
      if (!valid(end) || (start === null) !== (end === null) || (start !== null && start === end)) return bad(t.quietTo);
      await services.db.transaction().execute((trx) =>
        saveDebtorPreferences(trx, {
          companyId,
          debtId,
          refusedChannels: Channel.channels.filter((channel) => fields[`refuse_${channel}`] !== undefined),
          quietHours: start === null || end === null ? null : { start, end },
          now,
        }),
      );
      return backTo(ctx, services, state, "preferences");
    }
    default:
      return bad("action");
  }
};

const verify = async (ctx: Context, services: AppServices, state: Found, fields: Record<string, string>) => {
  const subjects = [
    { rule: failureRules.debtorCheckPerLink, subject: subjectKey(state.token, true) },
    { rule: failureRules.debtorCheckPerAddress, subject: subjectKey(ctx.ip) },
  ];
  const exhausted = await exhaustedSubject(services, subjects);
  if (exhausted !== undefined) {
    ctx.set("Retry-After", String(exhausted.retryAfterSeconds));
    return showVerify(ctx, services, state, 429, state.texts.throttled);
  }
  if (!identityMatches(state.view, fields["name"] ?? "", fields["second"] ?? "")) {
    await recordFailure(services, subjects);
    return showVerify(ctx, services, state, 401, state.texts.verifyFailed);
  }
  startSession(ctx, services, state.browser, state.target);
  return sendSeeOther(ctx, services, `${state.shell.path}?lang=${state.shell.language}`);
};
