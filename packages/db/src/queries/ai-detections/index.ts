/** AI detections: what call analyses and replies show, awaiting review. */
export * from "./insert-ai-detections.ts";
export * from "./lift-detection-holds.ts";
