/**
 * Every task this worker runs, given in code (never loaded from files) and
 * bound to its dependencies.
 */
import type { Database } from "@dc/db";
import type { TaskList } from "graphile-worker";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Clock } from "./clock.ts";
import { PURGE_EXPIRED, purgeExpiredTask } from "./tasks/purge-expired.ts";

/** What tasks may use: the database, the time, the log. */
export interface TaskDependencies {
  readonly db: Kysely<Database>;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** Builds graphile-worker's task list. */
export const buildTaskList = (dependencies: TaskDependencies): TaskList => ({
  [PURGE_EXPIRED]: purgeExpiredTask(dependencies),
});
