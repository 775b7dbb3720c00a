export * from "./record-email-bounces.ts";
export * from "./record-email-click.ts";
export * from "./record-email-open.ts";
export * from "./unsubscribe-from-email.ts";
