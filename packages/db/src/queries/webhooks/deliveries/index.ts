/** Webhook deliveries: the list of the api and the attempts of the worker. */
export * from "./list-endpoint-deliveries.ts";
export * from "./list-latest-attempts.ts";
export * from "./find-head-of-line.ts";
export * from "./insert-attempt.ts";
export * from "./load-delivery.ts";
export * from "./postpone-delivery.ts";
export * from "./record-attempt-outcome.ts";
