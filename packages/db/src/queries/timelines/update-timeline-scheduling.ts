/**
 * Rewrites a timeline's name (when given) and sending window from a new
 * version's scheduling. Run first in the transaction that writes the
 * version: its row lock orders concurrent edits of one timeline, so the
 * version number read afterwards (`insertTimelineVersion`) is never taken
 * twice. Undefined when the company has no such timeline, or it is archived.
 */
import type { TimelineDefinition } from "@dc/domain";
import type { Db } from "../executor.ts";

export const updateTimelineScheduling = (
  db: Db,
  timeline: {
    readonly companyId: number;
    readonly timelineId: number;
    readonly name?: string | undefined;
    readonly now: Date;
  },
  scheduling: TimelineDefinition.Scheduling,
) =>
  db
    .updateTable("timelines")
    .set({
      ...(timeline.name === undefined ? {} : { name: timeline.name }),
      timezone: scheduling.time_zone,
      allowed_weekdays: [...scheduling.weekdays],
      window_start: scheduling.window.start,
      window_end: scheduling.window.end,
      updated_at: timeline.now,
    })
    .where("company_id", "=", timeline.companyId)
    .where("id", "=", timeline.timelineId)
    .where("archived_at", "is", null)
    .returning(["id", "name", "is_default"])
    .executeTakeFirst();
