/** Webhook deliveries as `GET /webhooks/endpoints/{id}/deliveries` lists them. */
export * from "./list-endpoint-deliveries.ts";
export * from "./list-latest-attempts.ts";
