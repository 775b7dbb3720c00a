/** The collection engine's enrollments: enroll, stop, pause, resume, schedule steps, read a debt's timeline. */
export * from "./company-clock.ts";
export * from "./enroll-debts.ts";
export * from "./find-enrollment-view.ts";
export * from "./pause-enrollments.ts";
export * from "./release-holds.ts";
export * from "./resume-enrollments.ts";
export * from "./schedule-steps.ts";
export * from "./step-sql.ts";
export * from "./stop-enrollments.ts";
