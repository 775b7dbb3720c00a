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
    await kit.simulateWorker(s.snapshot.id, {
      status: "completed",
      counts: sampleCounts,
      warnings: [],
      warningCount: 0,
    });
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
