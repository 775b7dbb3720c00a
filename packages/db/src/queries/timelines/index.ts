/** Timelines: the list of the api, and their authoring by the admin CLI (definitions, versions, the default). */
export * from "./delete-timepoints.ts";
export * from "./find-active-timeline-ids.ts";
export * from "./find-timeline-versions.ts";
export * from "./insert-timeline.ts";
export * from "./insert-timeline-version.ts";
export * from "./insert-timeline-actions.ts";
export * from "./insert-timepoints.ts";
export * from "./list-timelines.ts";
export * from "./mark-default-timeline.ts";
export * from "./update-timeline-scheduling.ts";
