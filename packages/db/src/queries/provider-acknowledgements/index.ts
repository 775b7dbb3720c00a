/** What real channel providers acknowledged, for reconciling sends after a crash (docs/decisions/0617). */
export * from "./find-acknowledgement.ts";
export * from "./record-acknowledgement.ts";
export * from "./find-claimed-provider-messages.ts";
