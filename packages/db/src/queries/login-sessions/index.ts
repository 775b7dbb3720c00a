/** The consent page's login sessions. */
export * from "./find-live-session.ts";
export * from "./insert-session.ts";
export * from "./revoke-session.ts";
