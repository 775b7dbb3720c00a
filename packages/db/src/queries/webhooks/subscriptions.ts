/**
 * Which event types a company's enabled endpoints want: a cheap check (one
 * indexed read) that lets a caller skip building payloads nobody receives,
 * e.g. before reading 20,000 debts for `debt.created` after a snapshot.
 * `recordEvents` filters the same way, so skipping is only an optimisation.
 */
import type { Kysely } from "kysely";
import type { Database } from "../../schema.ts";
import { type WebhookEventType, webhookEventTypes } from "./event-types.ts";

export const subscribedWebhookEventTypes = async (db: Kysely<Database>, companyId: number): Promise<ReadonlySet<WebhookEventType>> => {
  const endpoints = await db
    .selectFrom("webhook_endpoints")
    .select("event_types")
    .where("company_id", "=", companyId)
    .where("enabled", "=", true)
    .execute();
  const types = new Set<WebhookEventType>();
  for (const { event_types: subscribed } of endpoints) {
    for (const type of webhookEventTypes) if (subscribed.length === 0 || subscribed.includes(type)) types.add(type);
  }
  return types;
};
