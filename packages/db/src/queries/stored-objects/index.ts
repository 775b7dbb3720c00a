/** Objects the platform stores itself: letters' PDFs, disputes' attachments (docs/decisions/0650, 0674). */
export * from "./find-object.ts";
export * from "./store-object.ts";
