/** Debts: views, lists, the set-based insert and the single-debt writes of the api. */
export * from "./add-followup-count.ts";
export * from "./allocate-debt-ids.ts";
export * from "./debt-exists-anywhere.ts";
export * from "./debt-views.ts";
export * from "./delete-debt.ts";
export * from "./find-api-debts-by-internal-id.ts";
export * from "./find-debt-key.ts";
export * from "./find-debt-view.ts";
export * from "./find-invoice-currencies.ts";
export * from "./insert-debts.ts";
export * from "./list-debts.ts";
export * from "./lock-debt.ts";
export * from "./lock-debt-for-delete.ts";
export * from "./set-debt-status.ts";
export * from "./share-debt-campaign.ts";
export * from "./update-debt.ts";
