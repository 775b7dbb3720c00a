/** A sandbox company's own resources as the api serves them: its clock and the messages its channels kept. */
export * from "./enqueue-sandbox-clock-advance.ts";
export * from "./find-sandbox-clock.ts";
export * from "./list-sandbox-messages.ts";
