/** Adds timepoints to a company's timeline, one statement for all, and returns their ids and positions. */
import type { Db } from "../executor.ts";

export const insertTimepoints = (
  db: Db,
  timeline: { readonly companyId: number; readonly timelineId: number },
  timepoints: ReadonlyArray<{ readonly position: number; readonly dayOffset: number }>,
) =>
  db
    .insertInto("timeline_timepoints")
    .values(
      timepoints.map((timepoint) => ({
        company_id: timeline.companyId,
        timeline_id: timeline.timelineId,
        position: timepoint.position,
        day_offset: timepoint.dayOffset,
      })),
    )
    .returning(["id", "position"])
    .execute();
