/**
 * Fixtures of the snapshot webhook-event tests: row builders, two snapshots
 * of one campaign whose second one exercises every kind of change (and so
 * every event type), and readers of the stored events and deliveries.
 */
import type { Database, WebhookEventType } from "@dc/db";
import type { Kysely } from "kysely";

export const row = (internalId: string, remaining: number, extra: Record<string, unknown> = {}) => ({
  internal_id: internalId,
  remaining_amount: remaining,
  currency: "EUR",
  ...extra,
});
const pending = (reference: string, amount: number, date: string) => ({
  external_reference: reference,
  amount,
  payment_date: date,
  status: "pending",
});
const paid = (reference: string, amount: number, paymentId: string) => ({
  external_reference: reference,
  amount,
  payment_date: "2030-06-01",
  status: "paid",
  paid_at: "2030-06-01T10:00:00+02:00",
  external_payment_id: paymentId,
});
const plan = (reference: string, installments: ReadonlyArray<unknown>, status = "active") => ({
  external_reference: reference,
  status,
  installments,
});

export interface StoredEvent {
  readonly id: number;
  readonly type: WebhookEventType;
  readonly occurred_at: Date;
  readonly body: { readonly type: string; readonly timestamp: string; readonly data: Record<string, unknown> };
}

export const eventsOf = async (db: Kysely<Database>, companyId: number): Promise<Array<StoredEvent>> =>
  (
    await db
      .selectFrom("webhook_events")
      .select(["id", "type", "occurred_at", "payload"])
      .where("company_id", "=", companyId)
      .orderBy("id")
      .execute()
  ).map(({ id, type, occurred_at, payload }) => ({
    id,
    type: type as WebhookEventType,
    occurred_at,
    body: JSON.parse(payload) as StoredEvent["body"],
  }));

export const countsByType = (events: ReadonlyArray<StoredEvent>): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const { type } of events) counts[type] = (counts[type] ?? 0) + 1;
  return counts;
};

export const deliveriesOf = (db: Kysely<Database>, companyId: number) =>
  db.selectFrom("webhook_deliveries").selectAll().where("company_id", "=", companyId).orderBy("id").execute();

/** The debts of the first snapshot, before any endpoint exists (so it records nothing). */
export const seedRows = [
  row("a", 100),
  row("b", 80, { email: "b@old.test" }),
  row("c", 100, { payment_plan: plan("plan-c1", [pending("c1", 50, "2030-07-01"), pending("c2", 50, "2030-08-01")]) }),
  row("d", 50),
  row("e", 70, { payment_plan: plan("plan-e", [pending("e1", 70, "2030-07-01")]) }),
  row("f", 30),
  row("g", 40, { payment_plan: plan("plan-g", [pending("g1", 40, "2030-07-01")]) }),
  row("h", 20),
];

/**
 * a: balance 100 -> 60 (a direct payment); b: contact only; c: plan replaced
 * with a paid installment, balance 100 -> 60; d: a row brings it to zero;
 * e, f: omitted, settled (e's plan cancelled); g: plan cancelled by its row;
 * h: unchanged; new-1 (with a plan and a paid installment), new-2: created.
 */
export const secondRows = [
  row("a", 60),
  row("b", 80, { email: "b@new.test" }),
  row("c", 60, { payment_plan: plan("plan-c2", [paid("c2a", 40, "pay-c"), pending("c2b", 60, "2030-07-01")]) }),
  row("d", 0),
  row("g", 40, { payment_plan: plan("plan-g", [pending("g1", 40, "2030-07-01")], "cancelled") }),
  row("h", 20),
  row("new-1", 90, { payment_plan: plan("plan-n", [paid("n1", 10, "pay-n"), pending("n2", 90, "2030-07-01")]) }),
  row("new-2", 25),
];
