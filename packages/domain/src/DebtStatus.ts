/**
 * Debt status values, the list filters that select them and the allowed
 * transitions. The contract shows only `pending` and `in_progress`; the rest
 * of the set and the transition table are our decision. Every status a debt
 * takes after its creation is checked against the table: the snapshot
 * planner plans only allowed moves, and the write of a plan refuses any
 * other (docs/decisions/0530). The api never writes a status: it is
 * read-only in the debt update body.
 */
import { Data, Schema } from "effect";

/** All debt status values, as stored and returned. */
export const statuses = [
  "status.default.pending",
  "status.default.in_progress",
  "status.default.payment_plan",
  "status.default.disputed",
  "status.default.paid",
  "status.default.cancelled",
] as const;

export type Status = (typeof statuses)[number];

/** Schema of a debt status value. */
export const Status = Schema.Literal(...statuses);

export const pending = "status.default.pending" satisfies Status;
export const inProgress = "status.default.in_progress" satisfies Status;
export const paymentPlan = "status.default.payment_plan" satisfies Status;
export const disputed = "status.default.disputed" satisfies Status;
export const paid = "status.default.paid" satisfies Status;
export const cancelled = "status.default.cancelled" satisfies Status;

/** Status of a newly created debt. */
export const initial: Status = pending;

const activeStatuses: ReadonlyArray<Status> = [pending, inProgress, paymentPlan];

/** Named filters of the `status` query parameter and the statuses each selects. */
export const namedFilters: Readonly<Record<"active" | "paid" | "disputed", ReadonlyArray<Status>>> = {
  active: activeStatuses,
  paid: [paid],
  disputed: [disputed],
};

/** Schema of the `status` list filter: a named filter or an exact status value. */
export const StatusFilter = Schema.Literal("active", "paid", "disputed", ...statuses).annotations({
  identifier: "DebtStatusFilter",
  message: () => ({ message: `must be one of: active, paid, disputed, ${statuses.join(", ")}`, override: true }),
});
export type StatusFilter = typeof StatusFilter.Type;

/** Tells whether a string (a stored column, a query parameter) is one of the debt status values. */
export const isStatus = (value: string): value is Status => (statuses as ReadonlyArray<string>).includes(value);

/** Statuses selected by a `status` filter value, or `undefined` for an unknown filter. */
export const filterToStatuses = (filter: string): ReadonlyArray<Status> | undefined => {
  if (filter === "active" || filter === "paid" || filter === "disputed") return namedFilters[filter];
  return isStatus(filter) ? [filter] : undefined;
};

/**
 * Allowed transitions. `paid -> in_progress` reopens a debt whose balance a
 * later snapshot raised again; `cancelled` is terminal.
 */
export const transitions: Readonly<Record<Status, ReadonlyArray<Status>>> = {
  "status.default.pending": [inProgress, paymentPlan, disputed, paid, cancelled],
  "status.default.in_progress": [paymentPlan, disputed, paid, cancelled],
  "status.default.payment_plan": [inProgress, disputed, paid, cancelled],
  "status.default.disputed": [inProgress, paymentPlan, paid, cancelled],
  "status.default.paid": [inProgress],
  "status.default.cancelled": [],
};

/** Tells whether a debt may move from `from` to `to`. */
export const canTransition = (from: Status, to: Status): boolean => transitions[from].includes(to);

/** A write would move a debt between two statuses the transition table does not connect. */
export class IllegalTransition extends Data.TaggedError("IllegalTransition")<{
  readonly debtId: number;
  readonly from: Status;
  readonly to: Status;
}> {
  override get message(): string {
    return `debt ${this.debtId} may not move from ${this.from} to ${this.to}`;
  }
}

/** Tells whether a status is active: still being collected (the `active` filter, settled on omission). */
export const isActive = (status: Status): boolean => activeStatuses.includes(status);
