/** OAuth credentials past their use: what the hourly purge finds and deletes. */
export * from "./delete-expired-credentials.ts";
export * from "./delete-unused-grants.ts";
export * from "./find-expired-credentials.ts";
