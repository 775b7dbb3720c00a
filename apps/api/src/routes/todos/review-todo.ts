/**
 * POST /todos/{id}/validate and /reject (docs/decisions/0680): one
 * transaction locks the todo, moves it along the review table
 * (`Review.review`: `suggested` only, once), carries out what the review does
 * to the debt's collection (`Review.effectOf`), and records the webhook
 * events, so a review and its effects commit together or not at all.
 */
import type { DebtorLinkSigner } from "@dc/crypto";
import { type Endpoints, messages, todoErrorCodes, todoMessages } from "@dc/contract";
import {
  type DbTransaction,
  findActivePlanId,
  findCompanyClock,
  findTodos,
  lockDebt,
  lockTodo,
  paymentPlanReplacedEventData,
  pauseEnrollments,
  recordEvents,
  recordReview,
  releaseHolds,
  setDebtStatus,
  startProposedPlan,
  stopEnrollments,
  subscribedWebhookEventTypes,
  type TodoKey,
  todoEventData,
  todoKeyText,
  type WebhookEventInput,
} from "@dc/db";
import { DebtStatus, Review } from "@dc/domain";
import { Either } from "effect";
import { debtLinkSigner } from "../../debtor-page/links.ts";
import { Conflict, NotFound } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { retriedTransaction } from "../../http/retried-transaction.ts";
import { todoPresenter } from "../../presenters/present-todo.ts";
import type { AppServices } from "../../services.ts";
import { recordDebtEvents } from "../debts/debt-events.ts";

const DAY_MS = 86_400_000;

const notFound = () => new NotFound({ message: todoMessages.notFound });

/** The todo a public id names: a debtor request or an AI detection; 404 for anything else. */
const todoKeyOf = (services: AppServices, id: string): TodoKey => {
  for (const source of Review.sources) {
    const key = services.ids.decode(source, id);
    if (key !== undefined) return { source, id: key };
  }
  throw notFound();
};

interface Scope {
  readonly trx: DbTransaction;
  readonly services: AppServices;
  /** Signs the debtor page links of the debt.updated payload. */
  readonly signer: DebtorLinkSigner;
  readonly companyId: number;
  readonly now: Date;
}

/** What an effect wrote that integrators hear of besides `todo.reviewed`. */
interface Written {
  readonly debtChanged: boolean;
  readonly plan?: { readonly planId: number; readonly replacedPlanId: number | null };
}

/** Carries out `effect` on the locked debt; throws the contract's 409 for a proposal that no longer fits. */
const applyEffect = async (
  scope: Scope,
  effect: Review.Effect,
  debt: { readonly id: number; readonly status: string; readonly balance_minor: number; readonly currency: string },
  todo: { readonly key: TodoKey; readonly publicId: string; readonly content: unknown },
): Promise<Written> => {
  const { trx, companyId, now } = scope;
  const ref = { companyId, id: debt.id, from: debt.status };
  switch (effect._tag) {
    case "Resume":
      await releaseHolds(trx, { companyId, debtIds: [debt.id], now });
      return { debtChanged: false };
    case "StartPlan": {
      const plan = Review.planOfProposal(todo.content, todo.publicId, debt.balance_minor, debt.currency);
      if (Either.isLeft(plan)) {
        throw new Conflict({ errorCode: todoErrorCodes.proposalUnfit, message: todoMessages.proposalUnfit });
      }
      const hadActivePlan = (await findActivePlanId(trx, companyId, debt.id)) !== undefined;
      const started = await startProposedPlan(trx, { companyId, now }, debt.id, plan.right, hadActivePlan);
      const debtChanged = await setDebtStatus(trx, ref, DebtStatus.paymentPlan, now);
      // The plan holds the timeline through the guard while its installments are kept (docs/decisions/0602).
      await releaseHolds(trx, { companyId, debtIds: [debt.id], now });
      return { debtChanged, plan: started };
    }
    case "Dispute": {
      const debtChanged = await setDebtStatus(trx, ref, DebtStatus.disputed, now);
      await stopEnrollments(trx, { companyId, debtIds: [debt.id], reason: "disputed", now });
      return { debtChanged };
    }
    case "Pause": {
      const clock = await findCompanyClock(trx, companyId, now);
      const until = new Date((clock?.now ?? now).getTime() + effect.days * DAY_MS);
      await pauseEnrollments(trx, { companyId, debtIds: [debt.id], until, reason: effect.reason, now });
      return { debtChanged: false };
    }
  }
};

const recordReviewEvents = async (scope: Scope, key: TodoKey, debtId: number, written: Written): Promise<void> => {
  const { trx, services, signer, companyId, now } = scope;
  const subscribed = await subscribedWebhookEventTypes(trx, companyId);
  if (written.debtChanged) await recordDebtEvents(trx, services.ids, signer, companyId, "debt.updated", [debtId], now);
  const events: Array<WebhookEventInput> = [];
  if (written.plan !== undefined && subscribed.has("payment_plan.replaced")) {
    const [data] = await paymentPlanReplacedEventData(trx, services.ids, companyId, [{ debtId, ...written.plan }]);
    events.push({ companyId, type: "payment_plan.replaced", data, occurredAt: now });
  }
  if (subscribed.has("todo.reviewed")) {
    const data = (await todoEventData(trx, services.ids, companyId, [key])).get(todoKeyText(key));
    if (data === undefined)
      throw new Error(`todo ${todoKeyText(key)} is not readable in the transaction that wrote it`);
    events.push({ companyId, type: "todo.reviewed", data, occurredAt: now });
  }
  await recordEvents(trx, events);
};

const reviewTodo =
  (decision: Review.Decision): HandlerOf<Endpoints["validateTodo"]> =>
  async ({ params, body, principal, services, ctx }) => {
    const { companyId } = principal;
    const key = todoKeyOf(services, params.id);
    const now = services.clock.now();
    const row = await retriedTransaction(services.db, async (trx) => {
      const todo = await lockTodo(trx, companyId, key);
      if (todo === undefined) throw notFound();
      const status = Review.review(todo.review_status, decision);
      if (Either.isLeft(status)) {
        throw new Conflict({
          errorCode: todoErrorCodes.alreadyReviewed,
          message: todoMessages.alreadyReviewed(status.left.status),
        });
      }
      const debt = await lockDebt(trx, companyId, todo.debt_id);
      if (debt === undefined) throw new NotFound({ message: messages.debtNotFound });
      const scope = { trx, services, signer: debtLinkSigner(services, ctx), companyId, now };
      const written = await applyEffect(scope, Review.effectOf(todo, decision), debt, {
        key,
        publicId: params.id,
        content: todo.content,
      });
      await recordReview(trx, companyId, key, { status: status.right, note: body.note ?? null, at: now });
      await recordReviewEvents(scope, key, debt.id, written);
      const [reviewed] = await findTodos(trx, companyId, [key]);
      if (reviewed === undefined) throw new Error(`todo ${todoKeyText(key)} vanished in its review`);
      return reviewed;
    });
    const message = decision === "validate" ? todoMessages.validated : todoMessages.rejected;
    return { body: { error: false, message, data: todoPresenter(services, ctx, companyId)(row) } };
  };

export const validateTodo: HandlerOf<Endpoints["validateTodo"]> = reviewTodo("validate");
export const rejectTodo: HandlerOf<Endpoints["rejectTodo"]> = reviewTodo("reject");
