/**
 * Adds a version to a company's timeline and makes it the one new
 * enrollments take (docs/decisions/0600): one statement. Versions are
 * immutable; debts already enrolled keep theirs until they restart. The
 * definition is stored encoded by the domain schema, its steps in run order.
 * Two versions of one timeline written at once: the second fails with a
 * unique violation on (company, timeline, version).
 */
import { TimelineDefinition } from "@dc/domain";
import { Schema } from "effect";
import { sql } from "kysely";
import type { DbTransaction } from "../executor.ts";

export interface NewTimelineVersion {
  readonly companyId: number;
  readonly timelineId: number;
  readonly definition: TimelineDefinition.Definition;
  readonly now: Date;
}

const encode = Schema.encodeSync(TimelineDefinition.Definition);

/** Writes the next version of the timeline; returns its id and number, or undefined when the company has no such timeline. */
export const insertTimelineVersion = async (
  trx: DbTransaction,
  input: NewTimelineVersion,
): Promise<{ readonly id: number; readonly version: number } | undefined> => {
  const { companyId, timelineId, now } = input;
  const definition = JSON.stringify(encode(TimelineDefinition.inRunOrder(input.definition)));
  const { rows } = await sql<{ id: number; version: number }>`
    with inserted as (
      insert into timeline_versions (company_id, timeline_id, version, definition, created_at)
      select t.company_id, t.id,
        coalesce((select max(v.version) from timeline_versions v where v.company_id = t.company_id and v.timeline_id = t.id), 0) + 1,
        ${definition}::jsonb, ${now.toISOString()}::timestamptz
      from timelines t
      where t.company_id = ${companyId} and t.id = ${timelineId}
      returning id, version
    )
    update timelines t set current_version_id = i.id, updated_at = ${now.toISOString()}::timestamptz
    from inserted i
    where t.company_id = ${companyId} and t.id = ${timelineId}
    returning i.id, i.version
  `.execute(trx);
  return rows[0];
};
