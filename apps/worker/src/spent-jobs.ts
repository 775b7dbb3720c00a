/**
 * The shape the periodic sweeps of spent jobs share (docs/decisions/0354
 * and 0455): find the jobs graphile-worker will not run again, then
 * settle each in a transaction of its own, so one whose record keeps failing
 * does not hold back the others. Errors are logged, never thrown: the next
 * sweep tries again.
 */
import type { Logger } from "pino";

export interface SpentJobSweep<Job> {
  readonly logger: Logger;
  /** The task whose jobs are swept, for the log. */
  readonly task: string;
  readonly find: () => Promise<ReadonlyArray<Job>>;
  /** Settles one job; false when there was nothing left to settle. */
  readonly settle: (job: Job) => Promise<boolean>;
  /** The id the job stands for, and its log field (e.g. `snapshotId`). */
  readonly idOf: (job: Job) => { readonly field: string; readonly id: number };
  /** Log messages when the jobs cannot be found, and when one cannot be settled. */
  readonly couldNotFind: string;
  readonly couldNotSettle: string;
}

/** Runs one sweep; returns the ids settled. */
export const settleSpentJobs = async <Job>(sweep: SpentJobSweep<Job>): Promise<Array<number>> => {
  const settled: Array<number> = [];
  let spent: ReadonlyArray<Job>;
  try {
    spent = await sweep.find();
  } catch (error) {
    sweep.logger.warn({ err: error, task: sweep.task }, sweep.couldNotFind);
    return settled;
  }
  for (const job of spent) {
    const { field, id } = sweep.idOf(job);
    try {
      if (await sweep.settle(job)) settled.push(id);
    } catch (error) {
      sweep.logger.warn({ err: error, task: sweep.task, [field]: id }, sweep.couldNotSettle);
    }
  }
  return settled;
};
