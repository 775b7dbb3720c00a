/** The destination policy of outgoing webhook requests (docs/decisions/0454). */
export * from "./destination.ts";
