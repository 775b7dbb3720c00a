/** Encryption with the process's `ID_ENCRYPTION_KEY`: public ids, page cursors and webhook signing secrets. */
export * from "./page-cursors.ts";
export * from "./public-ids.ts";
export * from "./signing-secrets.ts";
