/**
 * A sandbox company's clock (docs/decisions/0600): read it, and move it
 * forward. The clock never goes back: a move to an earlier time leaves it.
 */
import { sql } from "kysely";
import type { Db } from "../executor.ts";

/** The sandbox company's clock, or undefined for an unknown or live company. */
export const findSandboxClock = async (db: Db, companyId: number): Promise<Date | undefined> => {
  const row = await db
    .selectFrom("companies")
    .select("sandbox_now")
    .where("id", "=", companyId)
    .where("sandbox", "=", true)
    .executeTakeFirst();
  return row?.sandbox_now ?? undefined;
};

/** Moves the sandbox company's clock to `to` when that is later; returns the clock after. */
export const advanceSandboxClock = async (db: Db, companyId: number, to: Date): Promise<Date | undefined> => {
  const { rows } = await sql<{ sandbox_now: Date }>`
    update companies set sandbox_now = greatest(sandbox_now, ${to.toISOString()}::timestamptz)
    where id = ${companyId} and sandbox
    returning sandbox_now`.execute(db);
  return rows[0]?.sandbox_now;
};
