/** The graphile-worker queue as the api's and the worker's `job_queue_depth` gauges report it. */
import { type Kysely, sql } from "kysely";
import type { Database } from "../../schema.ts";

/**
 * Name, help and labels of the `job_queue_depth` gauge: one series, whichever
 * process (api or worker) serves it. Spread it into a prom-client `Gauge`
 * whose `collect` reads `jobQueueDepth`.
 */
export const jobQueueDepthGauge = {
  name: "job_queue_depth",
  help: "graphile-worker jobs waiting to run (not locked), by task",
  labelNames: ["task"] as const,
};

/** Jobs waiting to run (not locked by a worker), by task. */
export const jobQueueDepth = async (db: Kysely<Database>): Promise<ReadonlyArray<{ task: string; depth: number }>> => {
  const { rows } = await sql<{ task: string; depth: string }>`
    select task_identifier as task, count(*) as depth from graphile_worker.jobs
    where locked_at is null group by task_identifier`.execute(db);
  return rows.map((row) => ({ task: row.task, depth: Number(row.depth) }));
};
