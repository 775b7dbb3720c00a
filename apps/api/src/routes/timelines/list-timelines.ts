/**
 * GET /timelines: the company's timelines with their timepoints and actions.
 * One statement nests timepoints and actions (`listTimelines`); the
 * `content` column is never read (docs/decisions/0157), and the settings
 * shown are filtered again here (non-content-settings.ts).
 */
import { type Endpoints, paginationOf } from "@dc/contract";
import { listTimelines as listCompanyTimelines } from "@dc/db";
import type { HandlerOf } from "../../http/handler.ts";
import { nonContentSettings } from "./non-content-settings.ts";

export const listTimelines: HandlerOf<Endpoints["listTimelines"]> = async ({ query, principal, services }) => {
  const { rows, total } = await listCompanyTimelines(services.db, principal.companyId, query);
  return {
    body: {
      error: false,
      data: rows.map((row) => ({
        id: services.ids.encode("timeline", row.id),
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
      })),
      pagination: paginationOf(query, total),
    },
  };
};
