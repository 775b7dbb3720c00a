/**
 * A worker killed (SIGKILL) in the middle of a sandbox company's sends
 * (docs/decisions/0605): another worker finishes the work; every followup
 * of the step is sent exactly once (one `sandbox_messages` row each, the
 * provider's record), none is left `in_progress` or lost.
 */
import { enqueueAdvanceSandboxClock } from "@dc/db";
import { useTestDatabase } from "@dc/testing";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "../wait-for.ts";
import { spawnWorker, stopWorkers, type WorkerProcess } from "../worker-process.ts";
import { createEngineTenant, enrolledDebts } from "./engine-fixtures.ts";

const { db, url } = await useTestDatabase();
const running: Array<WorkerProcess> = [];
afterEach(() => stopWorkers(running));

const DEBTS = 4_000;
const environment = {
  DATABASE_URL: url,
  NODE_ENV: "development",
  LOG_LEVEL: "warn",
  // Short, for the dead worker's job to be freed soon, yet long enough that a live worker on this loaded
  // machine renews its lease within half of it (a worker that cannot exits, fencing itself).
  WORKER_STALE_LOCK_SECONDS: "6",
  ENGINE_SEND_TIMEOUT_SECONDS: "1",
};

const stepStatuses = async (companyId: number) => {
  const { rows } = await sql<{ status: string; count: number }>`
    select status, count(*)::int as count from followups
    where company_id = ${companyId} and step = 0 group by status order by status`.execute(db);
  return Object.fromEntries(rows.map((row) => [row.status, row.count]));
};

describe("a worker killed during sends", () => {
  it(
    "leaves no followup sent twice, none in_progress and none lost once another worker has run",
    { timeout: 240_000 },
    async () => {
      const start = new Date("2030-01-08T09:00:00Z");
      const tenant = await createEngineTenant(db, { sandboxNow: start });
      await enrolledDebts(
        db,
        tenant,
        Array.from({ length: DEBTS }, () => ({})),
        start,
      );
      const to = new Date("2030-01-08T12:00:00Z");

      const first = spawnWorker(environment);
      running.push(first);
      await enqueueAdvanceSandboxClock(db, tenant.companyId, to);
      await waitFor(
        "a send in progress",
        async () => ((await stepStatuses(tenant.companyId))["in_progress"] ?? 0) > 0 || undefined,
        { timeoutMs: 60_000, intervalMs: 2 },
      );
      first.child.kill("SIGKILL");
      expect(await first.exited).toEqual({ code: null, signal: "SIGKILL" });
      const atKill = await stepStatuses(tenant.companyId);
      // The kill interrupted the work: some sends were not finished.
      expect((atKill["in_progress"] ?? 0) + (atKill["scheduled"] ?? 0)).toBeGreaterThan(0);

      const second = spawnWorker(environment);
      running.push(second);
      await enqueueAdvanceSandboxClock(db, tenant.companyId, to);
      const finished = await waitFor(
        "every step-0 followup to be finished",
        async () => {
          const statuses = await stepStatuses(tenant.companyId);
          return (statuses["in_progress"] ?? 0) === 0 && (statuses["scheduled"] ?? 0) === 0 ? statuses : undefined;
        },
        { timeoutMs: 120_000, intervalMs: 200 },
      );
      expect(finished).toEqual({ delivered: DEBTS });

      const { rows } = await sql<{ followups: number; messages: number; duplicated: number; unsent: number }>`
      select
        (select count(*)::int from followups where company_id = ${tenant.companyId} and step = 0) as followups,
        (select count(*)::int from sandbox_messages where company_id = ${tenant.companyId}) as messages,
        (select count(*)::int from (
          select followup_id from sandbox_messages where company_id = ${tenant.companyId}
          group by followup_id having count(*) > 1) d) as duplicated,
        (select count(*)::int from followups f where f.company_id = ${tenant.companyId} and f.step = 0
          and not exists (select 1 from sandbox_messages m where m.company_id = f.company_id and m.followup_id = f.id)) as unsent`.execute(
        db,
      );
      expect(rows[0]).toEqual({ followups: DEBTS, messages: DEBTS, duplicated: 0, unsent: 0 });
      const debts = await sql<{ reminders: number }>`
      select sum(nb_reminders)::int as reminders from debts where company_id = ${tenant.companyId}`.execute(db);
      expect(debts.rows[0]?.reminders).toBe(DEBTS);
    },
  );
});
