/** Encryption with the process's `ID_ENCRYPTION_KEY`: public ids and webhook signing secrets. */
export * from "./public-ids.ts";
export * from "./signing-secrets.ts";
