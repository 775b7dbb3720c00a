/**
 * Finds the campaign and the snapshot a snapshot path names, within the
 * token's company. An unknown campaign, another company's campaign and an
 * unknown reference are all 404s, so nothing leaks across companies.
 */
import { snapshotMessages } from "@dc/contract";
import { findCampaignByReference, findSnapshot, type Snapshot, type SnapshotCampaign } from "@dc/db";
import type { Principal } from "../../auth/bearer.ts";
import { NotFound } from "../../http/api-error.ts";
import type { AppServices } from "../../services.ts";

export const requireCampaign = async (
  services: AppServices,
  principal: Principal,
  apiReference: string,
): Promise<SnapshotCampaign> => {
  const campaign = await findCampaignByReference(services.db, principal.companyId, apiReference);
  if (campaign === undefined) throw new NotFound({ message: snapshotMessages.campaignNotFound });
  return campaign;
};

export const snapshotKey = (principal: Principal, campaign: SnapshotCampaign, snapshotReference: string) => ({
  companyId: principal.companyId,
  campaignId: campaign.id,
  snapshotReference,
});

/** The stored snapshot, read again after a concurrent request won a race; it cannot have vanished. */
export const readSnapshot = async (
  services: AppServices,
  principal: Principal,
  campaign: SnapshotCampaign,
  snapshotReference: string,
): Promise<Snapshot> => {
  const snapshot = await findSnapshot(services.db, snapshotKey(principal, campaign, snapshotReference));
  if (snapshot === undefined) throw new NotFound({ message: snapshotMessages.snapshotNotFound });
  return snapshot;
};

/** The campaign and its snapshot, or 404 `Campaign not found` / `Snapshot not found`. */
export const requireSnapshot = async (
  services: AppServices,
  principal: Principal,
  params: { readonly apiReference: string; readonly snapshotReference: string },
): Promise<{ readonly campaign: SnapshotCampaign; readonly snapshot: Snapshot }> => {
  const campaign = await requireCampaign(services, principal, params.apiReference);
  return { campaign, snapshot: await readSnapshot(services, principal, campaign, params.snapshotReference) };
};
