/**
 * The company's clock (docs/decisions/0600): a live company runs on the
 * injected clock's time, a sandbox company on `companies.sandbox_now`, which
 * its owner advances. Every engine statement reads the time through
 * `companyClock`, so the same code serves both.
 */
import { type RawBuilder, sql } from "kysely";
import type { Db } from "../executor.ts";

/**
 * `coalesce(<alias>.sandbox_now, $now)`: the clock of the company row named
 * `alias` in the statement, given the injected clock's `now`.
 */
export const companyClock = (alias: string, now: Date): RawBuilder<Date> =>
  sql<Date>`coalesce(${sql.ref(`${alias}.sandbox_now`)}, ${now.toISOString()}::timestamptz)`;

/** What the engine needs of a company: its clock now, whether it is a sandbox, its time zone. */
export interface CompanyClock {
  readonly now: Date;
  readonly sandbox: boolean;
  readonly timeZone: string;
}

/** The company's time now (`now` for a live company, its sandbox clock otherwise); undefined for an unknown company. */
export const findCompanyClock = async (db: Db, companyId: number, now: Date): Promise<CompanyClock | undefined> => {
  const row = await db
    .selectFrom("companies as c")
    .select([companyClock("c", now).as("now"), "c.sandbox", "c.time_zone"])
    .where("c.id", "=", companyId)
    .executeTakeFirst();
  return row === undefined ? undefined : { now: row.now, sandbox: row.sandbox, timeZone: row.time_zone };
};
