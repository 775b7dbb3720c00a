/**
 * How every task starts: decode the payload with its schema. A payload that
 * does not decode will not decode on a retry either, so it is logged and the
 * job completes; a task throws only when a retry can help.
 */
import { Either, ParseResult, Schema } from "effect";
import type { JobHelpers, Task } from "graphile-worker";
import type { Logger } from "pino";

/**
 * Builds a graphile-worker task that runs `handler` with the decoded payload.
 * Unknown keys are rejected, so a misspelt option is noticed instead of ignored.
 *
 * @example
 * defineTask(Schema.Struct({ id: Schema.Number }), logger, async ({ id }) => { ... })
 */
export const defineTask =
  <A, I>(
    payloadSchema: Schema.Schema<A, I>,
    logger: Logger,
    handler: (payload: A, helpers: JobHelpers) => Promise<void>,
  ): Task =>
  async (payload, helpers) => {
    const decoded = Schema.decodeUnknownEither(payloadSchema, { onExcessProperty: "error" })(payload);
    if (Either.isLeft(decoded)) {
      logger.error(
        { task: helpers.job.task_identifier, jobId: helpers.job.id, error: ParseResult.TreeFormatter.formatErrorSync(decoded.left) },
        "invalid job payload: job dropped without retry",
      );
      return;
    }
    await handler(decoded.right, helpers);
  };
