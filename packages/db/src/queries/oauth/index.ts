/** OAuth credentials past their use: what the hourly purge finds and deletes. */
export * from "./delete-expired-credentials.ts";
export * from "./delete-unused-grants.ts";
export * from "./find-expired-credentials.ts";
export * from "./find-refresh-token-grant.ts";
export * from "./insert-grant.ts";
export * from "./revoke-access-token.ts";
export * from "./revoke-grant.ts";
export * from "./find-grant-user.ts";
export * from "./find-refresh-token-rotation.ts";
export * from "./insert-access-token.ts";
export * from "./insert-refresh-token.ts";
export * from "./rotate-refresh-token.ts";
