/**
 * A whole, realistic example of every operation: its path parameters, the
 * query a typical call sends, the request body (for operations that take
 * one) and the success answer. The OpenAPI document shows them beside each
 * operation and builds the `@dc/client` code samples from them;
 * test/examples.test.ts decodes each one with the operation's own schemas.
 */
import type { OperationId } from "../operations.ts";
import { accountExamples } from "./account.ts";
import { debtsExamples } from "./debts.ts";
import { engineExamples } from "./engine.ts";
import { followupsExamples } from "./followups.ts";
import { snapshotsExamples } from "./snapshots.ts";
import { webhooksExamples } from "./webhooks.ts";

export interface OperationExample {
  /** A value for each path parameter. */
  readonly path?: Readonly<Record<string, string | number>>;
  /** The query parameters of a typical call. */
  readonly query?: Readonly<Record<string, string | number>>;
  /** The request body, for operations that take one. */
  readonly request?: unknown;
  /** The success answer's body. */
  readonly response: unknown;
}

export const operationExamples = {
  ...accountExamples,
  ...debtsExamples,
  ...engineExamples,
  ...followupsExamples,
  ...snapshotsExamples,
  ...webhooksExamples,
} as const satisfies Record<OperationId, OperationExample>;
