/** Encryption and signatures with the process's `ID_ENCRYPTION_KEY`: public ids, debtor page links, page cursors, webhook signing secrets and e-mail tracking tokens. */
export * from "./page-cursors.ts";
export * from "./debtor-links.ts";
export * from "./public-ids.ts";
export * from "./signing-secrets.ts";
export * from "./email-tracking-tokens.ts";
