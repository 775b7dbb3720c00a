/** Which of `timelineIds` are the company's own, not archived, timelines. */
import type { Db } from "../executor.ts";

export const findActiveTimelineIds = async (
  db: Db,
  companyId: number,
  timelineIds: ReadonlyArray<number>,
): Promise<number[]> =>
  timelineIds.length === 0
    ? []
    : (
        await db
          .selectFrom("timelines")
          .select("id")
          .where("company_id", "=", companyId)
          .where("id", "in", timelineIds)
          .where("archived_at", "is", null)
          .execute()
      ).map((row) => row.id);
