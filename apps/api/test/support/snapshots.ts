/**
 * Helpers of the snapshot HTTP tests: a fresh tenant per test (the one-request
 * submit allows 50 requests per hour and company), paths, raw-body requests,
 * row builders, what is stored (snapshots, chunks, jobs) and the worker's
 * completion, simulated by updating the snapshot row (the worker runs apart).
 */
import { createHash } from "node:crypto";
import { snapshotQueueName } from "@dc/db";
import { sql } from "kysely";
import { expect } from "vitest";
import type { CreatedTenant } from "../../src/admin/tenants.ts";
import type { startTestApi } from "./harness.ts";

type TestApi = Awaited<ReturnType<typeof startTestApi>>;

export const STATUS_PATH = "/external-api/v1/campaigns/{apiReference}/snapshots/{snapshotReference}";
export const START_PATH = `${STATUS_PATH}/start`;
export const CHUNK_PATH = `${STATUS_PATH}/chunks/{chunkIndex}`;
export const FINALIZE_PATH = `${STATUS_PATH}/finalize`;

export interface Job {
  readonly id: number;
  readonly queue_name: string;
  readonly key: string;
  readonly max_attempts: number;
  readonly snapshot_id: number;
}

/** An account-balance row (`internal_id`); `fields` override or add keys. */
export const accountRow = (n: number, fields: Record<string, unknown> = {}): Record<string, unknown> => ({
  internal_id: `acct-${n}`,
  remaining_amount: 100 + n,
  currency: "EUR",
  firstname: "Ada",
  lastname: `Debtor ${n}`,
  ...fields,
});

export const rowsBody = (rows: ReadonlyArray<unknown>): string => JSON.stringify({ rows });

/** The body of `count` account rows numbered from `first`. */
export const rowsFrom = (first: number, count: number): string =>
  rowsBody(Array.from({ length: count }, (_, i) => accountRow(first + i)));

export const sha256 = (text: string): Buffer => createHash("sha256").update(Buffer.from(text, "utf8")).digest();

export const snapshotTestKit = (t: TestApi) => {
  let counter = 0;

  /** A new company with its campaign and a token (all scopes unless `scope` is given). */
  const setup = async (scope?: string) => {
    counter += 1;
    const tenant: CreatedTenant = await t.tenant(`Snapshot Co ${counter}`);
    const companyId = t.api.services.ids.decode("company", tenant.company_id);
    if (companyId === undefined) throw new Error("bad company id");
    const campaign = await t.db
      .selectFrom("campaigns")
      .select(["id", "api_reference"])
      .where("company_id", "=", companyId)
      .executeTakeFirstOrThrow();
    return { tenant, companyId, campaign, token: await t.token(tenant, scope) };
  };

  const path = (campaign: string, reference: string, suffix = "") =>
    `/external-api/v1/campaigns/${encodeURIComponent(campaign)}/snapshots/${encodeURIComponent(reference)}${suffix}`;

  const send = (method: string, url: string, token: string, body?: string, contentType = "application/json") =>
    t.request(url, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": contentType }) },
      ...(body === undefined ? {} : { body }),
    });

  const jobs = async (campaignId: number): Promise<Job[]> =>
    (
      await sql<Omit<Job, "snapshot_id">>`
        select id::int as id, queue_name, key, max_attempts from graphile_worker.jobs
        where task_identifier = 'apply_snapshot' and queue_name = ${snapshotQueueName(campaignId)}
        order by id`.execute(t.db)
    ).rows.map((job) => ({ ...job, snapshot_id: Number(job.key.replace("apply_snapshot:", "")) }));

  const allApplyJobs = async (): Promise<number> =>
    Number(
      (
        await sql<{
          count: string;
        }>`select count(*) from graphile_worker.jobs where task_identifier = 'apply_snapshot'`.execute(t.db)
      ).rows[0]?.count,
    );

  /** What a company has stored: snapshots, chunks and apply jobs of its campaign. */
  const stored = async (companyId: number, campaignId: number) => ({
    snapshots: (await t.db.selectFrom("snapshots").select("id").where("company_id", "=", companyId).execute()).length,
    chunks: (
      await t.db.selectFrom("snapshot_chunks").select("snapshot_id").where("company_id", "=", companyId).execute()
    ).length,
    jobs: (await jobs(campaignId)).length,
  });

  const snapshotRow = (companyId: number, reference: string) =>
    t.db
      .selectFrom("snapshots")
      .selectAll()
      .where("company_id", "=", companyId)
      .where("snapshot_reference", "=", reference)
      .executeTakeFirstOrThrow();

  /** What the worker does when it finishes: status, core_applied, counts and warnings, or a failure. */
  const simulateWorker = (
    snapshotId: number,
    outcome:
      | { readonly status: "processing" }
      | {
          readonly status: "completed";
          readonly counts: object;
          readonly warnings: ReadonlyArray<object>;
          readonly warningCount: number;
        }
      | { readonly status: "failed"; readonly failure: object },
  ) =>
    t.db
      .updateTable("snapshots")
      .set(
        outcome.status === "processing"
          ? { status: "processing" }
          : outcome.status === "completed"
            ? {
                status: "completed",
                core_applied: true,
                counts: JSON.stringify(outcome.counts),
                warnings: JSON.stringify(outcome.warnings),
                warning_count: outcome.warningCount,
                warnings_omitted: outcome.warningCount - outcome.warnings.length,
                completed_at: t.clock.now(),
                updated_at: t.clock.now(),
              }
            : {
                status: "failed",
                failure: JSON.stringify(outcome.failure),
                completed_at: t.clock.now(),
                updated_at: t.clock.now(),
              },
      )
      .where("id", "=", snapshotId)
      .execute();

  /** A new company with a started staged snapshot `reference` expecting `expected` rows. */
  const started = async (expected: number, reference = "staged-1") => {
    const context = await setup();
    const api = context.campaign.api_reference;
    const response = await send(
      "POST",
      path(api, reference, "/start"),
      context.token,
      JSON.stringify({ expected_row_count: expected }),
    );
    expect(response.status).toBe(201);
    return {
      ...context,
      reference,
      statusPath: `/external-api/v1/campaigns/${api}/snapshots/${reference}`,
      chunk: (index: number, body: string) =>
        send("PUT", path(api, reference, `/chunks/${index}`), context.token, body),
      finalize: () => send("POST", path(api, reference, "/finalize"), context.token),
      startResponse: response,
    };
  };

  /** Resolves once a session of this database waits for a lock (a request blocked behind an open transaction). */
  const lockWait = async () => {
    for (let attempt = 0; attempt < 200; attempt++) {
      const { rows } = await sql<{ waiting: number }>`
        select count(*)::int as waiting from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock'`.execute(t.db);
      if ((rows[0]?.waiting ?? 0) > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error("no request waited for the lock");
  };

  return { setup, started, path, send, jobs, allApplyJobs, stored, snapshotRow, simulateWorker, lockWait };
};

export const sampleCounts = {
  rows: 2,
  created: 1,
  updated: 1,
  unchanged: 0,
  settled: 3,
  plans_replaced: 0,
  plans_kept: 0,
  payments: 4,
  skipped_zero_balance: 0,
  warnings: 1,
};
