/**
 * The company's review of what awaits it (contract 3.3, DESIGN.md 9): debtor
 * requests (`portal_dispute`, `hardship`, `payment_plan`) and AI detections
 * (`ai_dispute`, `objection`) arrive `suggested` and are validated or
 * rejected once. This module holds the transition table, what each review
 * does to the debt's collection (docs/decisions/0680), and the schema of a
 * plan proposal with the plan it becomes.
 */
import { Data, Either, Schema } from "effect";
import * as Dates from "./Dates.ts";
import * as Money from "./Money.ts";
import * as PaymentPlan from "./PaymentPlan.ts";

export const statuses = ["suggested", "validated", "rejected"] as const;
export type Status = (typeof statuses)[number];

export const Status = Schema.Literal(...statuses);

export const sources = ["debtor_request", "ai_detection"] as const;
export type Source = (typeof sources)[number];

export const requestTypes = ["portal_dispute", "hardship", "payment_plan"] as const;
export const detectionTypes = ["ai_dispute", "objection"] as const;
export const types = [...requestTypes, ...detectionTypes] as const;
export type Type = (typeof types)[number];

export const Type = Schema.Literal(...types);

/** What the company answers. */
export type Decision = "validate" | "reject";

/** A status a review leaves an item in: final. */
export type Reviewed = Exclude<Status, "suggested">;

/** Longest review note, in characters. */
export const maxNoteLength = 1000;

/** How long a validated hardship pauses the debt's timeline. */
export const hardshipPauseDays = 30;

/**
 * Allowed moves: a review happens once. `suggested` is the only status a
 * review leaves; `validated` and `rejected` are final.
 */
export const transitions: Readonly<Record<Status, ReadonlyArray<Status>>> = {
  suggested: ["validated", "rejected"],
  validated: [],
  rejected: [],
};

/** The item was reviewed before: its status is final. */
export class AlreadyReviewed extends Data.TaggedError("AlreadyReviewed")<{ readonly status: Reviewed }> {}

const target: Readonly<Record<Decision, Reviewed>> = { validate: "validated", reject: "rejected" };

/** The status `decision` moves an item in `current` to, or `AlreadyReviewed` when the table forbids it. */
export const review = (current: Status, decision: Decision): Either.Either<Reviewed, AlreadyReviewed> => {
  const next = target[decision];
  if (transitions[current].includes(next)) return Either.right(next);
  // Only a final status has no move; `suggested` reaches both.
  return Either.left(new AlreadyReviewed({ status: current as Reviewed }));
};

/**
 * What a review does to the debt's collection, in the review's transaction:
 * - `Resume`: the item no longer holds the timeline; the engine goes on (every
 *   rejection; a validated non-blocking dispute or objection).
 * - `StartPlan`: the proposal becomes the debt's active plan, which holds the
 *   timeline while its installments are kept (docs/decisions/0602).
 * - `Dispute`: the debt is disputed and its timeline stops.
 * - `Pause`: the timeline pauses for `days`, then goes on by itself.
 */
export type Effect =
  | { readonly _tag: "Resume" }
  | { readonly _tag: "StartPlan" }
  | { readonly _tag: "Dispute" }
  | { readonly _tag: "Pause"; readonly days: number; readonly reason: "hardship" };

/** The effect of `decision` on an item of `type` (`blocking` as stored on the item). */
export const effectOf = (item: { readonly type: Type; readonly blocking: boolean }, decision: Decision): Effect => {
  if (decision === "reject") return { _tag: "Resume" };
  switch (item.type) {
    case "payment_plan":
      return { _tag: "StartPlan" };
    case "hardship":
      return { _tag: "Pause", days: hardshipPauseDays, reason: "hardship" };
    case "portal_dispute":
    case "ai_dispute":
      return item.blocking ? { _tag: "Dispute" } : { _tag: "Resume" };
    case "objection":
      return { _tag: "Resume" };
  }
};

/** One installment of a debtor's plan proposal, in minor units of the debt's currency. */
export const ProposedInstallment = Schema.Struct({
  amount_minor: Schema.Int.pipe(Schema.positive()),
  payment_date: Dates.PlainDate,
});

/** The `content` of a `payment_plan` debtor request: the schedule the debtor proposes. */
export const PlanProposal = Schema.Struct({
  installments: Schema.Array(ProposedInstallment).pipe(
    Schema.minItems(1),
    Schema.maxItems(PaymentPlan.maxInstallments),
  ),
}).annotations({ identifier: "PlanProposal" });
export type PlanProposal = typeof PlanProposal.Type;

/** A proposal that cannot become the debt's plan, and why. */
export class ProposalUnfit extends Data.TaggedError("ProposalUnfit")<{ readonly reason: string }> {}

/**
 * The active plan a validated proposal becomes, checked by the one plan rule
 * (`PaymentPlan.checkPlan`) against the debt's balance now: its pending
 * installments must add up to the balance. `reference` names the plan and
 * prefixes its installments' references (`<reference>-1`, ...).
 */
export const planOfProposal = (
  content: unknown,
  reference: string,
  balanceMinor: number,
  currency: string,
): Either.Either<PaymentPlan.MinorPlan, ProposalUnfit> => {
  const decoded = Schema.decodeUnknownEither(PlanProposal)(content);
  if (Either.isLeft(decoded)) return Either.left(new ProposalUnfit({ reason: "the proposal has no valid schedule" }));
  const plan: PaymentPlan.PaymentPlan = {
    external_reference: reference,
    status: "active",
    installments: decoded.right.installments.map((item, i) => ({
      external_reference: `${reference}-${i + 1}`,
      amount: Money.fromMinor(item.amount_minor, currency),
      payment_date: item.payment_date,
      status: "pending" as const,
    })),
  };
  return PaymentPlan.checkPlan(plan, balanceMinor, currency).pipe(
    Either.mapLeft(
      (errors) =>
        new ProposalUnfit({
          reason: errors.map((e) => (e.path === "" ? e.message : `${e.path} ${e.message}`)).join("; "),
        }),
    ),
  );
};
