/** What a keyed request and its recorded answer are made of (docs/decisions/0024). */

/** A request that sent a key: what makes a later one with the same key "the same request". */
export interface KeyedRequest {
  readonly companyId: number;
  readonly key: string;
  /** The contract's operationId. */
  readonly operation: string;
  readonly requestSha256: Buffer;
}

/** The answer recorded under a key. */
export interface RecordedAnswer {
  readonly operation: string;
  readonly requestSha256: Buffer;
  readonly status: number;
  /** The answer's JSON text, as it was sent. */
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}
