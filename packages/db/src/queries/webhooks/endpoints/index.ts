/** Webhook endpoints: the rows of `/webhooks/endpoints`, never their secrets except to rotate them. */
export * from "./count-endpoints.ts";
export * from "./delete-endpoint.ts";
export * from "./endpoint-columns.ts";
export * from "./find-endpoint.ts";
export * from "./insert-endpoint.ts";
export * from "./list-endpoints.ts";
export * from "./lock-endpoint-secret.ts";
export * from "./update-endpoint.ts";
export * from "./disable-gone-endpoint.ts";
