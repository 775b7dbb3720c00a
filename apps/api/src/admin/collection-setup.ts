/** Administration of creditors, timelines and campaigns. */
import { type Db, insertCampaign, insertNamedCreditor } from "@dc/db";

export { createTimeline } from "./timelines.ts";

export interface NewCreditor {
  readonly companyId: number;
  readonly name: string;
  readonly email?: string | undefined;
  readonly phone?: string | undefined;
  readonly country?: string | undefined;
}

export const createCreditor = (db: Db, creditor: NewCreditor) => insertNamedCreditor(db, creditor);

export interface NewCampaign {
  readonly companyId: number;
  readonly apiReference: string;
  readonly name: string;
  readonly creditorId: number;
  readonly timelineId: number;
}

export const createCampaign = (db: Db, campaign: NewCampaign) => insertCampaign(db, campaign);
