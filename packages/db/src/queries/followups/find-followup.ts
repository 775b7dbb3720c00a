/** One followup of a company (the columns of its resource), or undefined. */
import type { Db } from "../executor.ts";
import { followupResourceColumns, type FollowupResourceRow } from "../webhooks/event-data/followup-data.ts";

export const findFollowup = (db: Db, companyId: number, followupId: number): Promise<FollowupResourceRow | undefined> =>
  db
    .selectFrom("followups")
    .select(followupResourceColumns)
    .where("id", "=", followupId)
    .where("company_id", "=", companyId)
    .executeTakeFirst();
