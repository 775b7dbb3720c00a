/** Payment plans outside snapshots: the active plan of a debt, a validated proposal started. */
export * from "./find-active-plan.ts";
export * from "./start-proposed-plan.ts";
