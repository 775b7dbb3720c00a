/** Companies: profile, credits, counts and the row lock of per-company limits. */
export * from "./count-company-records.ts";
export * from "./debit-credits.ts";
export * from "./find-company-credits.ts";
export * from "./find-company-profile.ts";
export * from "./lock-company.ts";
export * from "./find-company-name.ts";
export * from "./insert-company.ts";
