/** A sandbox company's own resources as the api serves them: its clock and the messages its channels kept. */
export * from "./find-sandbox-clock-state.ts";
export * from "./list-sandbox-messages.ts";
