/** graphile-worker's queue as our processes watch and repair it. */
export * from "./find-expired-lock-holders.ts";
export * from "./force-unlock-workers.ts";
export * from "./is-job-locked.ts";
export * from "./job-queue-depth.ts";
