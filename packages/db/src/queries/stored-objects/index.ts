/** Objects the platform stores itself: letters' PDFs (docs/decisions/0650). */
export * from "./find-object.ts";
export * from "./store-object.ts";
