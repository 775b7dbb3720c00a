/** Debt imports: the batch row and its summary. */
export * from "./insert-import-batch.ts";
export * from "./record-import-summary.ts";
