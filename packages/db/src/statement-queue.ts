/**
 * Statements handed to one transaction's connection without waiting for
 * each other. Kysely sends a transaction's statements one at a time, and
 * sends its ROLLBACK straight to the connection, so a statement still
 * waiting its turn when the transaction fails would reach the connection
 * after the ROLLBACK, outside the transaction. Before a failure is allowed
 * to roll the transaction back, `firstFailure` settles every statement.
 */
export const statementQueue = (timings: Record<string, number> = {}) => {
  // Statements not known to have succeeded, in the order they were handed over. A statement that succeeds leaves
  // the set, so a long-lived queue (one per snapshot application) holds no result it has no use for.
  const unsettled = new Set<Promise<unknown>>();
  return {
    /** Hands `statement` over and records its duration, waiting included, under `name`. */
    run: <T>(name: string, statement: () => Promise<T>): Promise<T> => {
      const began = performance.now();
      const running = statement().finally(() => {
        timings[name] = Math.round(performance.now() - began);
      });
      unsettled.add(running);
      running.then(
        () => unsettled.delete(running),
        () => undefined, // awaited by the caller, or settled by `firstFailure`
      );
      return running;
    },
    /** Settles every statement; the earliest failure, the cause of any later one (an aborted transaction). */
    firstFailure: async (): Promise<unknown> =>
      (await Promise.allSettled([...unsettled])).find((outcome) => outcome.status === "rejected")?.reason,
  };
};

export type StatementQueue = ReturnType<typeof statementQueue>;
