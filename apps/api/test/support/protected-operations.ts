/**
 * Every bearer-protected operation of the contract, read from `endpoints`,
 * for the sweeps that must cover each of them (scope matrix, concurrency cap):
 * an operation added later is swept without an edit.
 */
import { endpoints, rateLimitSubject, type Scope } from "@dc/contract";

export const protectedOperations = Object.entries(endpoints).flatMap(([operationId, declared]) =>
  declared.scope === null
    ? []
    : [
        {
          operationId,
          method: declared.method,
          path: declared.path,
          scope: declared.scope as Scope,
          body: declared.body,
          /** Whether the operation spends a rate-limit budget (and answers with its `RateLimit-*` headers). */
          rateLimited: rateLimitSubject(declared) !== undefined,
        },
      ],
);

export type ProtectedOperation = (typeof protectedOperations)[number];

/**
 * Sends `operation` with `token` (none when undefined) to `baseUrl`, each path
 * parameter `dummy` and, where it takes a body, an empty one of its content
 * type: enough to meet every check that comes before the parameters are read.
 */
export const sendWithDummies = (baseUrl: string, operation: ProtectedOperation, token: string | undefined) =>
  fetch(`${baseUrl}${operation.path.replace(/\{[^}]+\}/g, "dummy")}`, {
    method: operation.method.toUpperCase(),
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(operation.body === undefined ? {} : { "content-type": operation.body.contentType }),
    },
    ...(operation.body === undefined ? {} : { body: operation.body.contentType === "application/json" ? "{}" : "" }),
  });
