/** Timelines: the list of the api and the setup of the admin CLI. */
export * from "./find-active-timeline-ids.ts";
export * from "./insert-timeline.ts";
export * from "./insert-timeline-version.ts";
export * from "./insert-timeline-actions.ts";
export * from "./insert-timepoints.ts";
export * from "./list-timelines.ts";
