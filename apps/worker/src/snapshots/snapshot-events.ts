/**
 * The webhook events of an applied snapshot, recorded in the applying
 * transaction after the plan's writes and the snapshot's completion
 * (docs/webhooks.md, "Where events are recorded"): `debt.created` per created debt,
 * `debt.updated` per other debt the update wrote (balance, status or
 * contact), `debt.settled` per debt it paid off (instead of `debt.updated`:
 * one debt event per debt), `payment_plan.replaced` per plan replaced, set
 * or cancelled (by a row or a settlement), `payment.recorded` per payment
 * row, then `snapshot.completed`. The company's subscriptions are read once
 * and only the subscribed types' payloads are built, each type with a few
 * batch reads (never one per debt), and everything is written by one
 * `recordEvents` statement, whatever the count; a company without endpoints
 * costs one indexed read.
 */
import type { DebtorLinkSigner } from "@dc/crypto";
import {
  type AppliedPlan,
  type Db,
  debtEventDataBatch,
  type EventIds,
  paymentEventData,
  paymentPlanReplacedEventData,
  type RecordedEvents,
  recordEvents,
  snapshotEventData,
  subscribedWebhookEventTypes,
  type WebhookEventInput,
  type WebhookEventType,
} from "@dc/db";

/** Payments read per statement: keeps each read's parameter list far below PostgreSQL's 65,535. */
const PAYMENTS_PER_READ = 10_000;
/** Plan replacements per builder call (each call reads plans and installments by id list). */
const REPLACEMENTS_PER_READ = 10_000;

/** Encrypting an id costs tens of microseconds; a run encodes the same debt, creditor and timeline ids many times. */
const memoized = (ids: EventIds): EventIds => {
  const cache = new Map<string, string>();
  return {
    encode: (kind, key) => {
      const cacheKey = `${kind}:${key}`;
      let id = cache.get(cacheKey);
      if (id === undefined) {
        id = ids.encode(kind, key);
        cache.set(cacheKey, id);
      }
      return id;
    },
    decode: ids.decode,
  };
};

const chunks = <T>(items: ReadonlyArray<T>, size: number): Array<ReadonlyArray<T>> =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

const required = <K, V>(data: ReadonlyMap<K, V>, key: K, what: string): V => {
  const value = data.get(key);
  if (value === undefined) throw new Error(`${what} ${String(key)} was written but cannot be read back`);
  return value;
};

export interface AppliedSnapshot {
  readonly companyId: number;
  readonly snapshotId: number;
  /** The clock value the apply used. */
  readonly now: Date;
}

/**
 * Records the events of an applied snapshot. Call after
 * `applyReconciliationPlan` and `markSnapshotCompleted`, in their
 * transaction: the payloads are the state that commits, with the debts'
 * `payment_link` as the api's reads present it, signed at the apply's time.
 */
export const recordAppliedSnapshotEvents = async (
  trx: Db,
  codec: EventIds,
  links: DebtorLinkSigner,
  snapshot: AppliedSnapshot,
  applied: AppliedPlan,
): Promise<RecordedEvents> => {
  const { companyId, snapshotId, now } = snapshot;
  const wanted = await subscribedWebhookEventTypes(trx, companyId);
  if (wanted.size === 0) return { events: 0, deliveries: 0 };
  const ids = memoized(codec);
  const debtIdsOf = (type: WebhookEventType, debtIds: ReadonlyArray<number>) => (wanted.has(type) ? debtIds : []);
  const created = debtIdsOf("debt.created", applied.createdIds);
  const updated = debtIdsOf("debt.updated", applied.updatedIds);
  const settled = debtIdsOf("debt.settled", applied.settledIds);
  const debts = await debtEventDataBatch(trx, ids, companyId, [...created, ...updated, ...settled], { signer: links, now });
  const payments = new Map<string, Record<string, unknown>>();
  if (wanted.has("payment.recorded")) {
    for (const part of chunks(applied.paymentIds, PAYMENTS_PER_READ)) {
      for (const [id, data] of await paymentEventData(trx, ids, companyId, part)) payments.set(id, data);
    }
  }
  const replacements: Array<Record<string, unknown>> = [];
  if (wanted.has("payment_plan.replaced")) {
    for (const part of chunks(applied.planReplacements, REPLACEMENTS_PER_READ)) {
      replacements.push(...(await paymentPlanReplacedEventData(trx, ids, companyId, part)));
    }
  }
  const completed = wanted.has("snapshot.completed") ? await snapshotEventData(trx, companyId, snapshotId) : undefined;
  if (wanted.has("snapshot.completed") && completed === undefined) throw new Error(`snapshot ${snapshotId} not found`);

  const event = (type: WebhookEventType, data: unknown): WebhookEventInput => ({
    companyId,
    type,
    data,
    occurredAt: now,
  });
  const debtEvents = (type: WebhookEventType, debtIds: ReadonlyArray<number>) =>
    debtIds.map((id) => event(type, required(debts, id, "debt")));
  return recordEvents(trx, [
    ...debtEvents("debt.created", created),
    ...debtEvents("debt.updated", updated),
    ...debtEvents("debt.settled", settled),
    ...replacements.map((data) => event("payment_plan.replaced", data)),
    ...(wanted.has("payment.recorded") ? applied.paymentIds : []).map((id) =>
      event("payment.recorded", required(payments, id, "payment")),
    ),
    ...(completed === undefined ? [] : [event("snapshot.completed", completed)]),
  ]);
};
