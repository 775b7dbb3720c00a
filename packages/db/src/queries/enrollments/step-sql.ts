/**
 * SQL fragments the engine's statements share: where a timeline version's
 * schedule lives, the zone a step's day offsets count in, and a step's due
 * time. A step is due `day_offset` days after the enrollment's anchor on the
 * wall clock of the timeline's zone (the company's when the timeline names
 * none), so a step keeps its local time of day across a daylight-saving
 * change; it is never computed from when the previous step ran.
 */
import { type RawBuilder, sql } from "kysely";
import { Channel } from "@dc/domain";

/** Debt statuses whose debts are no longer worked: never enrolled, and stopped when reached. */
export const closedDebtStatuses = ["status.default.paid", "status.default.cancelled"] as const;

/** Followup statuses of an engine followup still waiting to run (`on_hold` while its enrollment is paused). */
export const waitingFollowupStatuses = ["scheduled", "on_hold"] as const;

/** The zone of `definition` (a jsonb expression) or, when it names none, `companyZone`. */
export const scheduleZone = (definition: RawBuilder<unknown>, companyZone: RawBuilder<unknown>): RawBuilder<string> =>
  sql<string>`coalesce(${definition} -> 'scheduling' ->> 'time_zone', ${companyZone})`;

/** `anchor + dayOffset days` counted on the wall clock of `zone`. */
export const dueAfter = (
  anchor: RawBuilder<unknown>,
  dayOffset: RawBuilder<unknown>,
  zone: RawBuilder<unknown>,
): RawBuilder<Date> =>
  sql<Date>`((${anchor} at time zone ${zone}) + make_interval(days => (${dayOffset})::int)) at time zone ${zone}`;

/** The followup type a step's channel records, as the domain maps it (`ai_call` is a `call`, contract 2.4). */
export const followupTypeOfChannel = (channel: RawBuilder<unknown>): RawBuilder<string> =>
  sql<string>`case ${channel} ${sql.join(
    Channel.channels.map((name) => sql`when ${sql.lit(name)} then ${sql.lit(Channel.followupType(name))}`),
    sql` `,
  )} end`;
