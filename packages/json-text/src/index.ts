/** Rules and readers of JSON text on the wire, consumed as a namespace: `import * as JsonText from "@dc/json-text"`. */
export * from "./json-text.ts";
