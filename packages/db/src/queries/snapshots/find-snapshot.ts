/** A campaign's snapshot by its client reference (the unique key of `snapshots`). */
import type { Kysely } from "kysely";
import type { Database, Snapshot } from "../../schema.ts";

export interface SnapshotKey {
  readonly companyId: number;
  readonly campaignId: number;
  readonly snapshotReference: string;
}

export const findSnapshot = (db: Kysely<Database>, key: SnapshotKey): Promise<Snapshot | undefined> =>
  db
    .selectFrom("snapshots")
    .selectAll()
    .where("company_id", "=", key.companyId)
    .where("campaign_id", "=", key.campaignId)
    .where("snapshot_reference", "=", key.snapshotReference)
    .executeTakeFirst();
