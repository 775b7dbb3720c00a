/**
 * The engine in a running worker (docs/decisions/0600): the worker starts
 * the sweep's single job, which executes a due step by itself and keeps one
 * job in the queue whatever the number of debts waiting; an
 * `advance_sandbox_clock` job moves a sandbox company's clock and runs what
 * falls due on the way.
 */
import { enqueueAdvanceSandboxClock } from "@dc/db";
import { useTestDatabase } from "@dc/testing";
import { manualClock } from "@dc/runtime";
import { sql } from "kysely";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningWorker, startWorker } from "../../src/worker.ts";
import { testIds, testLinks } from "../snapshot-fixtures.ts";
import { waitFor } from "../wait-for.ts";
import {
  createEngineTenant,
  enrolledDebts,
  sandboxEverywhere,
  sandboxMessagesOf,
  tuesdayMorning,
} from "./engine-fixtures.ts";

const { db, url } = await useTestDatabase();
const clock = manualClock(tuesdayMorning);
let worker: RunningWorker;

beforeAll(async () => {
  worker = await startWorker({
    connectionString: url,
    concurrency: 2,
    clock,
    logger: pino({ level: "silent" }),
    ids: testIds, links: testLinks,
    engine: { adapters: sandboxEverywhere, settings: { idleSweepMs: 100 } },
  });
});
afterAll(async () => {
  await worker.stop();
});

const jobsByTask = async () => {
  const { rows } = await sql<{ task: string; key: string | null; count: number }>`
    select t.identifier as task, j.key, count(*)::int as count
    from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
    group by t.identifier, j.key order by t.identifier`.execute(db);
  return rows;
};

describe("a worker with the engine", () => {
  it("sends a live step when it falls due, with one sweep job and none per debt", async () => {
    const tenant = await createEngineTenant(db);
    const later = new Date(tuesdayMorning.getTime() + 86_400_000);
    const [due] = await enrolledDebts(db, tenant, [{}], tuesdayMorning);
    await enrolledDebts(
      db,
      tenant,
      Array.from({ length: 200 }, () => ({ startMode: "due_date", dueDate: "2030-03-01" })),
      tuesdayMorning,
    );
    await waitFor("the due step to be sent", async () =>
      (await sandboxMessagesOf(db, tenant.companyId)).length > 0 ? true : undefined,
    );
    expect((await sandboxMessagesOf(db, tenant.companyId)).map((message) => message.debt_id)).toEqual([due]);
    // One waiting sweep under its key (a running one has given its key up to its next run), and no job per debt.
    const jobs = await jobsByTask();
    expect(jobs.filter((row) => row.task !== "engine_sweep")).toEqual([]);
    expect(jobs.filter((row) => row.key !== null)).toEqual([{ task: "engine_sweep", key: "engine-sweep", count: 1 }]);
    expect(jobs.reduce((sum, row) => sum + row.count, 0)).toBeLessThanOrEqual(2);
    // Nothing more falls due until the clock reaches the next step.
    clock.set(later);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await sandboxMessagesOf(db, tenant.companyId)).toHaveLength(1);
  });

  it("advances a sandbox company's clock through advance_sandbox_clock", async () => {
    const start = new Date("2030-01-07T08:00:00Z");
    const tenant = await createEngineTenant(db, { sandboxNow: start });
    await enrolledDebts(db, tenant, [{}, {}], start);
    const to = new Date("2030-01-11T12:00:00Z");
    await enqueueAdvanceSandboxClock(db, tenant.companyId, to);
    await waitFor("the sandbox clock to reach its target", async () => {
      const row = await db
        .selectFrom("companies")
        .select("sandbox_now")
        .where("id", "=", tenant.companyId)
        .executeTakeFirstOrThrow();
      return row.sandbox_now?.getTime() === to.getTime() ? true : undefined;
    });
    const messages = await sandboxMessagesOf(db, tenant.companyId);
    expect(messages.map((message) => [message.channel, message.sent_at.toISOString()])).toEqual([
      ["email", "2030-01-07T08:00:00.000Z"],
      ["email", "2030-01-07T08:00:00.000Z"],
      ["sms", "2030-01-10T08:00:00.000Z"],
      ["sms", "2030-01-10T08:00:00.000Z"],
    ]);
  });
});
