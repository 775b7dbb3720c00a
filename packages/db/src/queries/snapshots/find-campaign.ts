/** A company's campaign by its API reference (the `{apiReference}` of snapshot paths). */
import type { Kysely } from "kysely";
import type { Database } from "../../schema.ts";

export interface SnapshotCampaign {
  readonly id: number;
  readonly api_reference: string;
}

export const findCampaignByReference = (
  db: Kysely<Database>,
  companyId: number,
  apiReference: string,
): Promise<SnapshotCampaign | undefined> =>
  db
    .selectFrom("campaigns")
    .select(["id", "api_reference"])
    .where("company_id", "=", companyId)
    .where("api_reference", "=", apiReference)
    .executeTakeFirst();
