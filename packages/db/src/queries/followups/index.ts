/** Followups: their rows, the charge lock and the media lookup. */
export * from "./find-followup.ts";
export * from "./find-followup-media.ts";
export * from "./insert-followup.ts";
export * from "./list-followups.ts";
export * from "./lock-followup.ts";
export * from "./update-followup.ts";
