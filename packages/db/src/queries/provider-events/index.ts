/** The providers' callback inbox and what its events write (docs/decisions/0630). */
export * from "./apply-delivery-updates.ts";
export * from "./claim-provider-events.ts";
export * from "./find-followups-by-provider-message.ts";
export * from "./find-replied-followups.ts";
export * from "./mark-provider-events.ts";
export * from "./opt-out-by-reply.ts";
export * from "./store-provider-events.ts";
