/**
 * Whether a company, creditor or timeline id exists, whatever its company:
 * the admin CLI checks an id it was given (docs/decisions/0010; a
 * tenant-statement exception).
 */
import type { Db } from "../executor.ts";

export const findRowId = async (
  db: Db,
  table: "companies" | "timelines" | "creditors",
  id: number,
): Promise<number | undefined> =>
  (await db.selectFrom(table).select(["id"]).where("id", "=", id).executeTakeFirst())?.id;
