/**
 * Creates a timeline of a company with its version 1 (docs/decisions/0600):
 * the timeline row, its sending window taken from the definition's
 * scheduling, then the version, in the caller's transaction. Every timeline
 * so has a current version for enrollments to take.
 */
import type { TimelineDefinition } from "@dc/domain";
import type { DbTransaction } from "../executor.ts";
import { insertTimelineVersion } from "./insert-timeline-version.ts";

export const insertTimeline = async (
  trx: DbTransaction,
  companyId: number,
  name: string,
  definition: TimelineDefinition.Definition,
  now: Date = new Date(),
): Promise<{ readonly id: number; readonly name: string; readonly versionId: number }> => {
  const { scheduling } = definition;
  const timeline = await trx
    .insertInto("timelines")
    .values({
      company_id: companyId,
      name,
      // Null: each debtor's own local time zone (migration 0031).
      timezone: scheduling.time_zone,
      allowed_weekdays: [...scheduling.weekdays],
      window_start: scheduling.window.start,
      window_end: scheduling.window.end,
      created_at: now,
      updated_at: now,
    })
    .returning(["id", "name"])
    .executeTakeFirstOrThrow();
  const version = await insertTimelineVersion(trx, { companyId, timelineId: timeline.id, definition, now });
  if (version === undefined) throw new Error(`timeline ${timeline.id} vanished before its first version`);
  return { ...timeline, versionId: version.id };
};
