/** Creates a campaign of a company (its api_reference is unique per company). */
import type { Db } from "../executor.ts";

export const insertCampaign = (
  db: Db,
  campaign: {
    readonly companyId: number;
    readonly apiReference: string;
    readonly name: string;
    readonly creditorId: number;
    readonly timelineId: number;
  },
) =>
  db
    .insertInto("campaigns")
    .values({
      company_id: campaign.companyId,
      api_reference: campaign.apiReference,
      name: campaign.name,
      creditor_id: campaign.creditorId,
      timeline_id: campaign.timelineId,
    })
    .returning(["id", "api_reference", "name"])
    .executeTakeFirstOrThrow();
