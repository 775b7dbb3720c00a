/** The collection engine's sweep: claim, re-read, decide, send, record, recover; its jobs and the sandbox clock. */
export * from "./add-debt-contacts.ts";
export * from "./claim-due-followups.ts";
export * from "./claim-stale-sends.ts";
export * from "./enqueue-engine-jobs.ts";
export * from "./find-ended-pauses.ts";
export * from "./load-send-contexts.ts";
export * from "./next-engine-work.ts";
export * from "./record-accepted-sends.ts";
export * from "./record-guard-decisions.ts";
export * from "./record-send-outcomes.ts";
export * from "./sandbox-clock.ts";
export * from "./set-followup-states.ts";
