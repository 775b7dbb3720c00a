/**
 * Removes a timeline's timepoints (their actions go with them, on delete
 * cascade), before the timepoints of a new version are written. Nothing
 * else refers to them: enrollments run on their version's definition.
 */
import type { Db } from "../executor.ts";

export const deleteTimepoints = async (db: Db, companyId: number, timelineId: number): Promise<void> => {
  await db
    .deleteFrom("timeline_timepoints")
    .where("company_id", "=", companyId)
    .where("timeline_id", "=", timelineId)
    .execute();
};
