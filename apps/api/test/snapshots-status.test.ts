import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi, TEST_START } from "./support/harness.ts";
import { accountRow, rowsBody, sampleCounts, snapshotTestKit, STATUS_PATH } from "./support/snapshots.ts";

const t = await startTestApi();
const kit = snapshotTestKit(t);

/** A company with one accepted one-request snapshot `reference`, and a debts:read token. */
const submitted = async (reference = "status-1") => {
  const context = await kit.setup();
  const url = kit.path(context.campaign.api_reference, reference);
  expect((await kit.send("PUT", url, context.token, rowsBody([accountRow(0), accountRow(1)]))).status).toBe(202);
  const reader = await t.token(context.tenant, "debts:read");
  const snapshot = await kit.snapshotRow(context.companyId, reference);
  return { ...context, url, reader, snapshot, read: () => t.get(url, reader) };
};

/** What the worker's commit does to an applied snapshot without warnings. */
const complete = (s: Awaited<ReturnType<typeof submitted>>) =>
  kit.simulateWorker(s.snapshot.id, { status: "completed", counts: sampleCounts, warnings: [], warningCount: 0 });

describe("GET /campaigns/{apiReference}/snapshots/{snapshotReference}", () => {
  it("shows a pending snapshot with a debts:read token: the acknowledgement, no warnings yet", async () => {
    const s = await submitted();
    const response = await s.read();
    expect(response.status).toBe(200);
    expect(await expectContract(response, "get", STATUS_PATH)).toEqual({
      error: false,
      message: "Snapshot retrieved successfully",
      data: {
        api_reference: s.campaign.api_reference,
        snapshot_reference: "status-1",
        delivery_mode: "one_request",
        status: "pending",
        core_applied: false,
        expected_row_count: 2,
        received_row_count: 2,
        received_chunk_count: 1,
        next_chunk_index: 1,
        counts: null,
        failure: null,
        created_at: TEST_START.toISOString(),
        updated_at: TEST_START.toISOString(),
        status_url: `/external-api/v1/campaigns/${s.campaign.api_reference}/snapshots/status-1`,
      },
    });
  });

  it("shows a processing snapshot", async () => {
    const s = await submitted();
    await kit.simulateWorker(s.snapshot.id, { status: "processing" });
    const body = await expectContract(await s.read(), "get", STATUS_PATH);
    expect(body.data).toMatchObject({ status: "processing", core_applied: false, counts: null });
    expect(body.data).not.toHaveProperty("warnings");
  });

  it("shows a completed snapshot with counts, the first 100 warnings, warning_count and warnings_omitted", async () => {
    const s = await submitted();
    const warnings = Array.from({ length: 100 }, (_, i) => ({
      row_index: i,
      code: i % 2 === 0 ? "expensive_destination" : "debt_cancelled",
      field: i % 2 === 0 ? "phone" : "internal_id",
      message:
        i % 2 === 0
          ? "costly destination not allowed by the campaign"
          : "the matching debt is cancelled; row not applied",
    }));
    const counts = { ...sampleCounts, warnings: 250 };
    t.clock.advance(90_000);
    await kit.simulateWorker(s.snapshot.id, { status: "completed", counts, warnings, warningCount: 250 });
    t.clock.set(TEST_START);
    const response = await s.read();
    expect(response.status).toBe(200);
    const body = await expectContract(response, "get", STATUS_PATH);
    expect(body.data).toEqual({
      api_reference: s.campaign.api_reference,
      snapshot_reference: "status-1",
      delivery_mode: "one_request",
      status: "completed",
      core_applied: true,
      expected_row_count: 2,
      received_row_count: 2,
      received_chunk_count: 1,
      next_chunk_index: 1,
      counts,
      failure: null,
      created_at: TEST_START.toISOString(),
      updated_at: new Date(TEST_START.getTime() + 90_000).toISOString(),
      status_url: `/external-api/v1/campaigns/${s.campaign.api_reference}/snapshots/status-1`,
      warnings,
      warning_count: 250,
      warnings_omitted: 150,
    });
  });

  it("shows a completed snapshot without warnings as an empty list", async () => {
    const s = await submitted();
    await complete(s);
    const body = await expectContract(await s.read(), "get", STATUS_PATH);
    expect(body.data).toMatchObject({ warnings: [], warning_count: 0, warnings_omitted: 0 });
  });

  it("shows a failed snapshot with its failure and no warnings", async () => {
    const s = await submitted();
    const failure = {
      code: "processing_error",
      message: "The snapshot could not be applied",
      errors: [],
      error_count: 0,
      errors_omitted: 0,
    };
    await kit.simulateWorker(s.snapshot.id, { status: "failed", failure });
    const body = await expectContract(await s.read(), "get", STATUS_PATH);
    expect(body.data).toMatchObject({ status: "failed", core_applied: false, counts: null, failure });
    expect(body.data).not.toHaveProperty("warnings");
    expect(body.data).not.toHaveProperty("warning_count");
  });

  it("shows a staged snapshot while uploading", async () => {
    const { campaign, token, tenant } = await kit.setup();
    expect(
      (await kit.send("POST", kit.path(campaign.api_reference, "up", "/start"), token, '{"expected_row_count":3}'))
        .status,
    ).toBe(201);
    expect(
      (await kit.send("PUT", kit.path(campaign.api_reference, "up", "/chunks/0"), token, rowsBody([accountRow(0)])))
        .status,
    ).toBe(201);
    const body = await expectContract(
      await t.get(kit.path(campaign.api_reference, "up"), await t.token(tenant, "debts:read")),
      "get",
      STATUS_PATH,
    );
    expect(body.data).toMatchObject({
      delivery_mode: "staged",
      status: "uploading",
      expected_row_count: 3,
      received_row_count: 1,
      received_chunk_count: 1,
      next_chunk_index: 1,
    });
    expect(body.data).not.toHaveProperty("chunk_index");
  });

  it("answers 404 for an unknown snapshot, an unknown campaign and another company's snapshot", async () => {
    const s = await submitted();
    const other = await kit.setup();
    const cases: Array<[string, string, string]> = [
      [kit.path(s.campaign.api_reference, "nope"), s.reader, "Snapshot not found"],
      [kit.path("no-campaign", "status-1"), s.reader, "Campaign not found"],
      [s.url, other.token, "Campaign not found"],
    ];
    for (const [url, token, message] of cases) {
      const response = await t.get(url, token);
      expect(response.status).toBe(404);
      expect(await expectContract(response, "get", STATUS_PATH)).toEqual({ error: true, message, code: 404 });
    }
  });

  it("requires debts:read: a debts:write-only token gets 403 with the exact message", async () => {
    const s = await submitted();
    const writer = await t.token(s.tenant, "debts:write");
    const response = await t.get(s.url, writer);
    expect(response.status).toBe(403);
    expect(await expectContract(response, "get", STATUS_PATH)).toEqual({
      error: true,
      message: 'Required scope "debts:read" not found in token',
      code: 403,
    });
  });

  it("answers 400 naming snapshotReference for a reference that is only a date", async () => {
    const s = await submitted();
    const response = await t.get(kit.path(s.campaign.api_reference, "2026-11-21"), s.reader);
    expect(response.status).toBe(400);
    expect((await expectContract(response, "get", STATUS_PATH)).details).toEqual({
      snapshotReference: "must identify one snapshot's content (an export id or a UUID), not a date alone",
    });
  });
});

describe("waiting for the outcome with Prefer: wait (docs/decisions/0307)", () => {
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const readWaiting = (s: Awaited<ReturnType<typeof submitted>>, prefer: string) =>
    t.request(s.url, { headers: { authorization: `Bearer ${s.reader}`, prefer } });

  it("answers a pending snapshot once it settles, not before, and says the wait was applied", async () => {
    const s = await submitted("wait-settles");
    const answer = readWaiting(s, "wait=30");
    let answered = false;
    void answer.then(() => (answered = true));
    // A move to processing does not settle it: the read goes on waiting.
    await pause(200);
    await kit.simulateWorker(s.snapshot.id, { status: "processing" });
    await pause(300);
    expect(answered).toBe(false);
    await complete(s);
    // Without the announcement, this read would answer only after 30 s, past the test's timeout.
    const response = await answer;
    expect(response.status).toBe(200);
    expect(response.headers.get("preference-applied")).toBe("wait=30");
    const body = await expectContract(response, "get", STATUS_PATH);
    expect(body.data).toMatchObject({ status: "completed", core_applied: true, counts: sampleCounts });
  });

  it("answers with the status as it is once the seconds have passed", async () => {
    const s = await submitted("wait-expires");
    const started = performance.now();
    const response = await readWaiting(s, "respond-async, wait=1");
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(response.headers.get("preference-applied")).toBe("wait=1");
    expect((await expectContract(response, "get", STATUS_PATH)).data).toMatchObject({ status: "pending" });
  });

  it("answers a settled snapshot at once, and a staged one still uploading without waiting", async () => {
    const s = await submitted("wait-settled");
    await kit.simulateWorker(s.snapshot.id, {
      status: "failed",
      failure: { code: "processing_error", message: "x", errors: [], error_count: 0, errors_omitted: 0 },
    });
    const settled = await readWaiting(s, "wait=30");
    expect(settled.headers.get("preference-applied")).toBe("wait=30");
    expect((await expectContract(settled, "get", STATUS_PATH)).data).toMatchObject({ status: "failed" });

    const { campaign, token, tenant } = await kit.setup();
    expect(
      (await kit.send("POST", kit.path(campaign.api_reference, "wait-up", "/start"), token, '{"expected_row_count":3}'))
        .status,
    ).toBe(201);
    const uploading = await t.request(kit.path(campaign.api_reference, "wait-up"), {
      headers: { authorization: `Bearer ${await t.token(tenant, "debts:read")}`, prefer: "wait=30" },
    });
    expect(uploading.headers.get("preference-applied")).toBeNull();
    expect((await expectContract(uploading, "get", STATUS_PATH)).data).toMatchObject({ status: "uploading" });
  });

  it.each(["wait=abc", "wait=-1", "wait", "wait=1.5", "handling=strict"])(
    "ignores the unusable preference %s",
    async (prefer) => {
      const s = await submitted(`wait-ignored-${prefer.replace(/[^a-z0-9]/g, "")}`);
      const response = await readWaiting(s, prefer);
      expect(response.headers.get("preference-applied")).toBeNull();
      expect((await expectContract(response, "get", STATUS_PATH)).data).toMatchObject({ status: "pending" });
    },
  );

  it("caps the wait at 30 seconds", async () => {
    const s = await submitted("wait-capped");
    await complete(s);
    expect((await readWaiting(s, "wait=3600")).headers.get("preference-applied")).toBe("wait=30");
  });

  it("answers a waiting read at once, with the status as it is, when the api stops", async () => {
    const s = await submitted("wait-stop");
    const second = await t.startAnotherApi();
    const answer = fetch(`${second.url}${s.url}`, {
      headers: { authorization: `Bearer ${s.reader}`, prefer: "wait=30" },
    });
    await pause(300);
    // A stop waits for requests in progress: without waking this one it would take 30 s, past the test's timeout.
    await second.stop();
    const response = await answer;
    expect(response.headers.get("connection")).toBe("close");
    expect((await expectContract(response, "get", STATUS_PATH)).data).toMatchObject({ status: "pending" });
  });

  it("ends the waits of clients that went away, so they do not hold the company's places (decision 0013)", async () => {
    const s = await submitted("wait-abandoned");
    // As many waits as the company may have requests in progress on this process (MAX_CONCURRENT_REQUESTS_PER_COMPANY).
    const aborts = Array.from({ length: 64 }, () => new AbortController());
    const waits = aborts.map((abort) =>
      fetch(`${t.api.url}${s.url}`, {
        headers: { authorization: `Bearer ${s.reader}`, prefer: "wait=30" },
        signal: abort.signal,
      }).catch(() => undefined),
    );
    await pause(500);
    for (const abort of aborts) abort.abort();
    await Promise.all(waits);
    await pause(200);
    // Without ending them, every place would stay taken for 30 s: 429 too_many_concurrent_requests.
    expect((await s.read()).status).toBe(200);
  });

  it("still learns the outcome when the listening connection is lost", async () => {
    const s = await submitted("wait-relisten");
    const answer = readWaiting(s, "wait=30");
    await pause(200);
    await sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'debt-collection-api-status-watch'`.execute(
      t.db,
    );
    await pause(200);
    await complete(s);
    const response = await answer;
    expect((await expectContract(response, "get", STATUS_PATH)).data).toMatchObject({ status: "completed" });
    expect(t.logLines.some((line) => line.includes("snapshot status watch: connection lost"))).toBe(true);
  });
});
