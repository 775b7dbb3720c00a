/** Debtors: their reads and the upsert by reference that debt writes use. */
export type { DebtorRow } from "./debtor-fields.ts";
export * from "./find-debtor.ts";
export * from "./list-debtors.ts";
export * from "./upsert-debtors.ts";
