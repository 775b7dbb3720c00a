/** Creditors: their rows and their debt totals. */
export * from "./creditor-columns.ts";
export * from "./creditor-totals.ts";
export * from "./find-creditor.ts";
export * from "./insert-creditor.ts";
export * from "./list-creditors.ts";
export * from "./update-creditor.ts";
export * from "./find-creditor-ids.ts";
export * from "./find-first-creditor.ts";
export * from "./insert-named-creditor.ts";
