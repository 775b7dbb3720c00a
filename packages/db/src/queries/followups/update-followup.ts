/** Sets columns of a company's followup (it must exist) and returns the columns of its resource. */
import type { FollowupUpdate } from "../../schema.ts";
import type { DbTransaction } from "../executor.ts";
import { followupResourceColumns, type FollowupResourceRow } from "../webhooks/event-data/followup-data.ts";

export const updateFollowup = (
  trx: DbTransaction,
  companyId: number,
  followupId: number,
  changes: FollowupUpdate,
): Promise<FollowupResourceRow> =>
  trx
    .updateTable("followups")
    .set(changes)
    .where("id", "=", followupId)
    .where("company_id", "=", companyId)
    .returning(followupResourceColumns)
    .executeTakeFirstOrThrow();
