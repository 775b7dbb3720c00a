/**
 * The webhook events of an applied snapshot, recorded in the applying
 * transaction batch by batch after each batch's writes
 * (docs/webhooks.md, "Where events are recorded"): `debt.created` per created debt,
 * `debt.updated` per other debt the update wrote (balance, status or
 * contact), `debt.settled` per debt it paid off (instead of `debt.updated`:
 * one debt event per debt), `payment_plan.replaced` per plan replaced, set
 * or cancelled (by a row or a settlement), `payment.recorded` per payment
 * row; `snapshot.completed` follows the last batch (`recordSnapshotEvent`).
 * The company's subscriptions are read once per application and only the
 * subscribed types' payloads are built, each type with a few batch reads
 * (never one per debt), and each batch's events are written by one
 * `recordEvents` statement; a company without endpoints writes nothing.
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
  /** The clock value the apply used. */
  readonly now: Date;
}

/**
 * Records the events of one applied batch of a snapshot, for the event
 * types in `wanted` (the company's subscriptions). Call after the batch's
 * writes, in their transaction: the payloads are the state that commits,
 * with the debts' `payment_link` as the api's reads present it, signed at
 * the apply's time.
 */
export const recordAppliedBatchEvents = async (
  trx: Db,
  codec: EventIds,
  links: DebtorLinkSigner,
  snapshot: AppliedSnapshot,
  applied: AppliedPlan,
  wanted: ReadonlySet<WebhookEventType>,
): Promise<RecordedEvents> => {
  const { companyId, now } = snapshot;
  if (wanted.size === 0) return { events: 0, deliveries: 0 };
  const ids = memoized(codec);
  const debtIdsOf = (type: WebhookEventType, debtIds: ReadonlyArray<number>) => (wanted.has(type) ? debtIds : []);
  const created = debtIdsOf("debt.created", applied.createdIds);
  const updated = debtIdsOf("debt.updated", applied.updatedIds);
  const settled = debtIdsOf("debt.settled", applied.settledIds);
  const debts = await debtEventDataBatch(trx, ids, companyId, [...created, ...updated, ...settled], {
    signer: links,
    now,
  });
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
  ]);
};
