/** The Idempotency-Key records of the creating operations (docs/decisions/0024). */
export * from "./claim-idempotency-key.ts";
export * from "./find-recorded-answer.ts";
export type * from "./keyed-request.ts";
export * from "./purge-idempotency-keys-batch.ts";
export * from "./record-answer.ts";
