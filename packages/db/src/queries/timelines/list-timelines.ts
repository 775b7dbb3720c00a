/**
 * A page of a company's timelines (not archived), oldest first, with their
 * total and their timepoints and actions nested as JSON arrays, in one
 * statement (no query per timeline). It never selects the actions'
 * `content` column: message bodies, subjects, templates and callback
 * numbers cannot leak (docs/decisions/0157).
 */
import { jsonArrayFrom } from "kysely/helpers/postgres";
import type { Db } from "../executor.ts";
import type { Keyset } from "../keyset.ts";
import { pageOfRows, type PageRequest } from "../page-of-rows.ts";

/** Oldest first: the primary key `(company_id, id)` serves a page after a key. */
export const timelineOrder: Keyset = [{ column: "t.id", direction: "asc", kind: "integer" }];

export const listTimelines = (db: Db, companyId: number, page: PageRequest) =>
  pageOfRows(
    db,
    db.selectFrom("timelines as t").where("t.company_id", "=", companyId).where("t.archived_at", "is", null),
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
        ]),
    timelineOrder,
    page,
  );
