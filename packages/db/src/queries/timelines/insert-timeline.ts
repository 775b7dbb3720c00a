/** Creates a timeline of a company, without timepoints. */
import type { Db } from "../executor.ts";

export const insertTimeline = (db: Db, companyId: number, name: string) =>
  db
    .insertInto("timelines")
    .values({ company_id: companyId, name })
    .returning(["id", "name"])
    .executeTakeFirstOrThrow();
