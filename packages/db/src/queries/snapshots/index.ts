/** Snapshot persistence: the records, their chunks and the job that applies them. */
export * from "./cross-row-errors.ts";
export * from "./declare-row-count.ts";
export * from "./enqueue-apply.ts";
export * from "./expire-staged.ts";
export * from "./finalize-snapshot.ts";
export * from "./find-campaign.ts";
export * from "./find-chunk.ts";
export * from "./find-snapshot.ts";
export * from "./insert-chunk.ts";
export * from "./insert-snapshot.ts";
export * from "./record-chunk.ts";
