/**
 * A company's sandbox clock as the api's sandbox operations read it: whether
 * it is a sandbox company, its clock, and whether an advance of it is still
 * queued, running or waiting for a retry (a graphile-worker job under the
 * company's key, read from the public `graphile_worker.jobs` view). One
 * statement; undefined for an unknown company.
 */
import { sql } from "kysely";
import type { Db } from "../executor.ts";
import { sandboxClockJobKey } from "../engine/enqueue-engine-jobs.ts";

export interface SandboxClockState {
  readonly sandbox: boolean;
  /** Null for a live company. */
  readonly now: Date | null;
  /** An `advance_sandbox_clock` job of the company is waiting, running or waiting for a retry. */
  readonly advancing: boolean;
}

export const findSandboxClockState = async (db: Db, companyId: number): Promise<SandboxClockState | undefined> => {
  const { rows } = await sql<{ sandbox: boolean; sandbox_now: Date | null; advancing: boolean }>`
    select c.sandbox, c.sandbox_now,
      c.sandbox and exists (select 1 from graphile_worker.jobs j where j.key = ${sandboxClockJobKey(companyId)}) as advancing
    from companies c
    where c.id = ${companyId}
  `.execute(db);
  const row = rows[0];
  return row === undefined ? undefined : { sandbox: row.sandbox, now: row.sandbox_now, advancing: row.advancing };
};
