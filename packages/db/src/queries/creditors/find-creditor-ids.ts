/**
 * In one statement, a company's first creditor (the default of a debt that
 * names none; null without creditors) and which of `creditorIds` are its own
 * (int8[] arrives as strings).
 */
import { sql } from "kysely";
import type { Db } from "../executor.ts";

export const findCreditorIds = async (
  db: Db,
  companyId: number,
  creditorIds: ReadonlyArray<number>,
): Promise<{ readonly first_id: number | null; readonly found: string[] } | undefined> =>
  (
    await sql<{ first_id: number | null; found: string[] }>`
      select min(id)::int8 as first_id, coalesce(array_agg(id) filter (where id = any(${creditorIds}::int8[])), '{}') as found
      from creditors where company_id = ${companyId}
    `.execute(db)
  ).rows[0];
