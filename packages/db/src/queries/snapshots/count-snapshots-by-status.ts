/** Snapshots of every company by status (bigint counts as text): the api's `snapshots_by_status` gauge. */
import { sql } from "kysely";
import type { Db } from "../executor.ts";

export const countSnapshotsByStatus = async (db: Db): Promise<ReadonlyArray<{ status: string; count: string }>> =>
  (
    await sql<{
      status: string;
      count: string;
    }>`select status, count(*) as count from snapshots group by status`.execute(db)
  ).rows;
