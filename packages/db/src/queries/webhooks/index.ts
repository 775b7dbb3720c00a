/** Webhooks: the outbox, delivery jobs, replays and event payloads. */
export * from "./delivery-jobs.ts";
export * from "./domain-ids.ts";
export * from "./event-data/debt-batch-data.ts";
export * from "./event-data/debt-data.ts";
export * from "./event-data/followup-data.ts";
export * from "./event-data/payment-data.ts";
export * from "./event-data/snapshot-data.ts";
export * from "./event-data/todo-data.ts";
export type { EventIds } from "./event-data/wire.ts";
export * from "./event-types.ts";
export * from "./record-event.ts";
export * from "./requeue-deliveries.ts";
export * from "./snapshot-events.ts";
export * from "./subscriptions.ts";
