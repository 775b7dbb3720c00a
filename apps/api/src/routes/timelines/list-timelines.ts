/**
 * GET /timelines: the company's timelines with their timepoints and actions.
 * One statement nests timepoints and actions as JSON arrays (no query per
 * timeline), and it never selects the `content` column: message bodies,
 * subjects, templates and callback numbers cannot leak (docs/decisions/0157).
 */
import type { Endpoints } from "@dc/contract";
import { jsonArrayFrom } from "kysely/helpers/postgres";
import type { HandlerOf } from "../../http/handler.ts";
import { pageOfRows } from "../../http/page-of-rows.ts";
import { nonContentSettings } from "./non-content-settings.ts";

export const listTimelines: HandlerOf<Endpoints["listTimelines"]> = async ({ query, principal, services }) => {
  const { db } = services;
  const timelines = db
    .selectFrom("timelines as t")
    .where("t.company_id", "=", principal.companyId)
    .where("t.archived_at", "is", null);
  const { rows, pagination } = await pageOfRows(
    db,
    timelines,
    (filtered) =>
      filtered
        .select((eb) => [
          "t.id",
          "t.name",
          "t.description",
          "t.is_default",
          "t.timezone",
          "t.allowed_weekdays",
          eb.fn<string>("to_char", ["t.window_start", eb.val("HH24:MI")]).as("window_start"),
          eb.fn<string>("to_char", ["t.window_end", eb.val("HH24:MI")]).as("window_end"),
          "t.created_at",
          "t.updated_at",
          jsonArrayFrom(
            eb
              .selectFrom("timeline_timepoints as tp")
              .select((inner) => [
                "tp.day_offset",
                "tp.position",
                jsonArrayFrom(
                  inner
                    .selectFrom("timeline_actions as a")
                    .select(["a.channel", "a.position", "a.configuration"])
                    .whereRef("a.timepoint_id", "=", "tp.id")
                    .whereRef("a.company_id", "=", "tp.company_id")
                    .orderBy("a.position"),
                ).as("actions"),
              ])
              .whereRef("tp.timeline_id", "=", "t.id")
              .whereRef("tp.company_id", "=", "t.company_id")
              .orderBy("tp.position"),
          ).as("timepoints"),
        ])
        .orderBy("t.id"),
    query,
  );
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
      pagination,
    },
  };
};
