/**
 * A timeline's wire form (contract 4.7): its scheduling, timepoints and
 * actions. The `content` column is never read (docs/decisions/0157), and the
 * settings shown are filtered again here (non-content-settings.ts).
 */
import type { Endpoints } from "@dc/contract";
import type { DomainIds as Ids, listTimelines } from "@dc/db";
import { nonContentSettings } from "./non-content-settings.ts";

export type TimelineView = Endpoints["listTimelines"]["success"]["schema"]["Type"]["data"][number];
type TimelineRow = Awaited<ReturnType<typeof listTimelines>>["rows"][number];

export const presentTimeline = (ids: Ids, row: TimelineRow): TimelineView => ({
  id: ids.encode("timeline", row.id),
  name: row.name,
  description: row.description,
  is_default: row.is_default,
  scheduling: {
    timezone: row.timezone,
    allowed_weekdays: row.allowed_weekdays,
    window_start: row.window_start,
    window_end: row.window_end,
  },
  timepoints: row.timepoints.map((timepoint) => ({
    day_offset: timepoint.day_offset,
    position: timepoint.position,
    actions: timepoint.actions.map((action) => ({
      channel: action.channel,
      position: action.position,
      configuration: nonContentSettings(action.configuration),
    })),
  })),
  created_at: row.created_at,
  updated_at: row.updated_at,
});
