/**
 * Stores an object under its key within the company (docs/decisions/0650).
 * Keys name one attempt's object, so a second store of the same key (a
 * resend of that attempt) keeps the first: the letter printed is the one
 * served.
 */
import type { Db } from "../executor.ts";

export interface ObjectToStore {
  readonly companyId: number;
  readonly key: string;
  readonly followupId: number;
  readonly contentType: string;
  readonly body: Buffer;
}

export const storeObject = async (db: Db, object: ObjectToStore): Promise<void> => {
  await db
    .insertInto("stored_objects")
    .values({
      company_id: object.companyId,
      key: object.key,
      followup_id: object.followupId,
      content_type: object.contentType,
      body: object.body,
    })
    .onConflict((conflict) => conflict.columns(["company_id", "key"]).doNothing())
    .execute();
};
