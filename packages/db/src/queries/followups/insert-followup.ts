/** Inserts a followup and returns the columns of its resource. */
import type { NewFollowup } from "../../schema.ts";
import type { DbTransaction } from "../executor.ts";
import { followupResourceColumns, type FollowupResourceRow } from "../webhooks/event-data/followup-data.ts";

export const insertFollowup = (trx: DbTransaction, followup: NewFollowup): Promise<FollowupResourceRow> =>
  trx.insertInto("followups").values(followup).returning(followupResourceColumns).executeTakeFirstOrThrow();
