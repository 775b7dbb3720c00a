/** What the sandbox channel provider writes and reads back (docs/sandbox.md). */
export * from "./find-sandbox-messages.ts";
export * from "./insert-sandbox-messages.ts";
