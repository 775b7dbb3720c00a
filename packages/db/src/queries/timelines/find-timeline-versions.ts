/**
 * A company's timeline with every version of its definition, newest first,
 * and how many debts each version still runs (its enrollments `active` or
 * `paused`): what `cli timeline show` prints. One statement; undefined when the
 * company has no such timeline.
 */
import { jsonArrayFrom } from "kysely/helpers/postgres";
import type { Db } from "../executor.ts";

export const findTimelineVersions = (db: Db, companyId: number, timelineId: number) =>
  db
    .selectFrom("timelines as t")
    .select((eb) => [
      "t.id",
      "t.name",
      "t.is_default",
      "t.archived_at",
      "t.current_version_id",
      jsonArrayFrom(
        eb
          .selectFrom("timeline_versions as v")
          .select((inner) => [
            "v.id",
            "v.version",
            "v.definition",
            "v.created_at",
            inner
              .selectFrom("enrollments as e")
              .select((count) => count.fn.countAll<number>().as("n"))
              .whereRef("e.company_id", "=", "v.company_id")
              .whereRef("e.timeline_id", "=", "v.timeline_id")
              .whereRef("e.timeline_version_id", "=", "v.id")
              .where("e.state", "in", ["active", "paused"])
              .as("enrollments"),
          ])
          .whereRef("v.company_id", "=", "t.company_id")
          .whereRef("v.timeline_id", "=", "t.id")
          .orderBy("v.version", "desc"),
      ).as("versions"),
    ])
    .where("t.company_id", "=", companyId)
    .where("t.id", "=", timelineId)
    .executeTakeFirst();
