/**
 * Starts the next job of a named queue as soon as the job before it is
 * recorded (docs/decisions/0353, addendum "queue hand-off").
 *
 * graphile-worker runs one job of a named queue at a time: the queue is
 * locked while its job runs. When the job ends, the worker records the
 * completion without awaiting it and at once looks for its next job; that
 * look usually runs before the record commits, finds the queue still
 * locked, and the worker sleeps for `pollInterval` (2 s). Only `add_job`
 * announces work, so the next snapshot of a campaign would start about 2 s
 * after the one before it ended.
 *
 * On graphile-worker's `job:complete` event for a job of a named queue, this
 * watches graphile-worker's public `graphile_worker.jobs` view until the job
 * is gone (completed) or unlocked (failed, to be retried): the same statement
 * unlocks its queue. It then nudges the worker pool (`WorkerPool.nudge`,
 * public), so an idle worker looks for a job at once. It only makes a worker
 * look sooner; which job it takes, and the one-job-at-a-time rule of the
 * queue, are graphile-worker's. Unlocks this process does not see (jobs
 * another process returned, stale locks released) still wait for a poll.
 */
import { type Db, isJobLocked } from "@dc/db";
import type { Job, Worker, WorkerEvents } from "graphile-worker";

/** How often the view is read while a completion is being recorded, and for how long at most. */
const CHECK_EVERY_MS = 5;
const GIVE_UP_AFTER_MS = 2_000;

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Nudges the pool once each finished job of a named queue has released its
 * queue. Returns the detach function; `settled()` resolves once no watch is in
 * flight (a stop awaits it before closing `db`).
 */
export const handOffQueues = (
  events: WorkerEvents,
  db: Db,
): { readonly detach: () => void; readonly settled: () => Promise<void> } => {
  const watching = new Set<Promise<void>>();
  let detached = false;
  const released = async (jobId: string): Promise<boolean> => !(await isJobLocked(db, jobId));
  const watch = async (jobId: string, nudge: () => void): Promise<void> => {
    const deadline = Date.now() + GIVE_UP_AFTER_MS;
    while (!detached && Date.now() < deadline) {
      if (await released(jobId)) {
        nudge();
        return;
      }
      await pause(CHECK_EVERY_MS);
    }
  };
  const onComplete = ({ worker, job }: { readonly worker: Worker; readonly job: Job }): void => {
    if (job.job_queue_id === null || detached) return;
    const watched: Promise<void> = watch(job.id, () => worker.workerPool.nudge(1))
      // A failed read only loses the early start: the worker's poll still finds the job.
      .catch(() => undefined)
      .finally(() => watching.delete(watched));
    watching.add(watched);
  };
  events.on("job:complete", onComplete);
  return {
    detach: () => {
      detached = true;
      events.off("job:complete", onComplete);
    },
    settled: async () => {
      await Promise.all([...watching]);
    },
  };
};
