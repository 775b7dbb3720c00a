import { snapshotQueueName } from "@dc/db";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi, TEST_START } from "./support/harness.ts";
import {
  accountRow,
  rowsBody,
  sampleCounts,
  sha256,
  snapshotTestKit,
  START_PATH,
  STATUS_PATH,
} from "./support/snapshots.ts";

const t = await startTestApi();
const kit = snapshotTestKit(t);

describe("PUT /campaigns/{apiReference}/snapshots/{snapshotReference} (one request)", () => {
  it("accepts a valid snapshot: 202, Location, the acknowledgement, the snapshot, chunk 0 and one job in one queue", async () => {
    const { companyId, campaign, token } = await kit.setup();
    const rows = [accountRow(1), accountRow(2, { accept_expensive_destination: "yes" })];
    const body = rowsBody(rows);
    const response = await kit.send("PUT", kit.path(campaign.api_reference, "export-0001"), token, body);
    expect(response.status).toBe(202);
    const statusPath = `/external-api/v1/campaigns/${campaign.api_reference}/snapshots/export-0001`;
    expect(response.headers.get("location")).toBe(statusPath);
    expect(await expectContract(response, "put", STATUS_PATH)).toEqual({
      error: false,
      message: "Snapshot accepted",
      data: {
        api_reference: campaign.api_reference,
        snapshot_reference: "export-0001",
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
        status_url: statusPath,
      },
    });

    const snapshot = await kit.snapshotRow(companyId, "export-0001");
    expect(snapshot).toMatchObject({
      campaign_id: campaign.id,
      delivery_mode: "one_request",
      status: "pending",
      expected_row_count: 2,
      received_row_count: 2,
      received_chunk_count: 1,
      next_chunk_index: 1,
      core_applied: false,
    });
    expect(snapshot.body_sha256).toEqual(sha256(body));
    const chunks = await t.db
      .selectFrom("snapshot_chunks")
      .selectAll()
      .where("snapshot_id", "=", snapshot.id)
      .execute();
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toMatchObject({ chunk_index: 0, company_id: companyId, row_count: 2, body });
    expect(chunks[0]?.body_sha256).toEqual(sha256(body));
    expect(await kit.jobs(campaign.id)).toEqual([
      {
        id: expect.any(Number),
        queue_name: snapshotQueueName(campaign.id),
        key: `apply_snapshot:${snapshot.id}`,
        max_attempts: 10,
        snapshot_id: snapshot.id,
      },
    ]);
    const payload = await sql<{ payload: unknown }>`
      select payload from graphile_worker._private_jobs where key = ${`apply_snapshot:${snapshot.id}`}`.execute(t.db);
    expect(payload.rows).toEqual([{ payload: { snapshot_id: snapshot.id, company_id: companyId } }]);
  });

  it("records the token's client as the integration and changes no debt", async () => {
    const { companyId, campaign, token } = await kit.setup();
    const debtsBefore = await t.db.selectFrom("debts").select("id").where("company_id", "=", companyId).execute();
    expect(
      (await kit.send("PUT", kit.path(campaign.api_reference, "export-client"), token, rowsBody([accountRow(1)])))
        .status,
    ).toBe(202);
    const snapshot = await kit.snapshotRow(companyId, "export-client");
    const client = await t.db
      .selectFrom("oauth_clients")
      .select("id")
      .where("company_id", "=", companyId)
      .executeTakeFirstOrThrow();
    expect(snapshot.integration_client_pk).toBe(client.id);
    expect(await t.db.selectFrom("debts").select("id").where("company_id", "=", companyId).execute()).toEqual(
      debtsBefore,
    );
  });

  it("keeps the body exactly as received: whitespace, numbers, nulls, the legacy key and unicode", async () => {
    const { companyId, campaign, token } = await kit.setup();
    const rows = [
      accountRow(1, {
        remaining_amount: 12.3,
        email: null,
        accept_expensive_destination: { nested: [1, "two", null] },
      }),
      accountRow(2, { lastname: "Ünïcødé 🎉", accept_expensive_destination: 0 }),
    ];
    const body = `{ "rows" :\n\t${JSON.stringify(rows, null, 2)} }`;
    expect((await kit.send("PUT", kit.path(campaign.api_reference, "exact"), token, body)).status).toBe(202);
    const snapshot = await kit.snapshotRow(companyId, "exact");
    const chunk = await t.db
      .selectFrom("snapshot_chunks")
      .select("body")
      .where("snapshot_id", "=", snapshot.id)
      .executeTakeFirstOrThrow();
    expect(chunk.body).toBe(body);
    expect(JSON.parse(chunk.body ?? "")).toEqual({ rows });
  });

  it("accepts an empty snapshot (every active campaign debt will be settled)", async () => {
    const { campaign, token } = await kit.setup();
    const response = await kit.send("PUT", kit.path(campaign.api_reference, "empty"), token, rowsBody([]));
    expect(response.status).toBe(202);
    const body = await expectContract(response, "put", STATUS_PATH);
    expect(body.data).toMatchObject({
      expected_row_count: 0,
      received_row_count: 0,
      received_chunk_count: 1,
      next_chunk_index: 1,
    });
  });

  it("accepts 20,000 rows", async () => {
    const { companyId, campaign, token } = await kit.setup();
    const rows = Array.from({ length: 20_000 }, (_, i) => accountRow(i));
    const response = await kit.send("PUT", kit.path(campaign.api_reference, "big"), token, rowsBody(rows));
    expect(response.status).toBe(202);
    expect((await expectContract(response, "put", STATUS_PATH)).data.expected_row_count).toBe(20_000);
    const snapshot = await kit.snapshotRow(companyId, "big");
    const chunk = await t.db
      .selectFrom("snapshot_chunks")
      .select("row_count")
      .where("snapshot_id", "=", snapshot.id)
      .executeTakeFirstOrThrow();
    expect(chunk.row_count).toBe(20_000);
  });

  it("encodes the references in Location and status_url", async () => {
    const { campaign, token } = await kit.setup();
    const reference = "export/2026 #1";
    const response = await kit.send(
      "PUT",
      kit.path(campaign.api_reference, reference),
      token,
      rowsBody([accountRow(1)]),
    );
    expect(response.status).toBe(202);
    const location = `/external-api/v1/campaigns/${campaign.api_reference}/snapshots/export%2F2026%20%231`;
    expect(response.headers.get("location")).toBe(location);
    const body = await expectContract(response, "put", STATUS_PATH);
    expect(body.data).toMatchObject({ snapshot_reference: reference, status_url: location });
    expect((await t.get(location, (await kit.setup()).token)).status).toBe(404);
  });
});

describe("idempotent resubmit (contract 3.4 and 4.3)", () => {
  it("answers an identical resubmit with 202 while pending or processing, adding no snapshot and no job", async () => {
    const { companyId, campaign, token } = await kit.setup();
    const body = rowsBody([accountRow(1), accountRow(2)]);
    const url = kit.path(campaign.api_reference, "retry-pending");
    expect((await kit.send("PUT", url, token, body)).status).toBe(202);
    t.clock.advance(5_000);

    const retry = await kit.send("PUT", url, token, body);
    expect(retry.status).toBe(202);
    expect(retry.headers.get("location")).toBe(
      `/external-api/v1/campaigns/${campaign.api_reference}/snapshots/retry-pending`,
    );
    const retried = await expectContract(retry, "put", STATUS_PATH);
    expect(retried.message).toBe("Snapshot already accepted");
    expect(retried.data).toMatchObject({
      status: "pending",
      core_applied: false,
      created_at: TEST_START.toISOString(),
    });

    const snapshot = await kit.snapshotRow(companyId, "retry-pending");
    await kit.simulateWorker(snapshot.id, { status: "processing" });
    const whileProcessing = await kit.send("PUT", url, token, body);
    expect(whileProcessing.status).toBe(202);
    expect((await expectContract(whileProcessing, "put", STATUS_PATH)).data.status).toBe("processing");
    expect(await kit.stored(companyId, campaign.id)).toEqual({ snapshots: 1, chunks: 1, jobs: 1 });
    t.clock.set(TEST_START);
  });

  it("answers an identical resubmit with 200 and the stored counts and warnings once completed", async () => {
    const { companyId, campaign, token } = await kit.setup();
    const body = rowsBody([accountRow(1), accountRow(2, { phone: "+88112345678" })]);
    const url = kit.path(campaign.api_reference, "retry-completed");
    expect((await kit.send("PUT", url, token, body)).status).toBe(202);
    const snapshot = await kit.snapshotRow(companyId, "retry-completed");
    const warning = {
      row_index: 1,
      code: "expensive_destination",
      field: "phone",
      message: "costly destination not allowed by the campaign",
    };
    await kit.simulateWorker(snapshot.id, {
      status: "completed",
      counts: sampleCounts,
      warnings: [warning],
      warningCount: 1,
    });

    const retry = await kit.send("PUT", url, token, body);
    expect(retry.status).toBe(200);
    const retried = await expectContract(retry, "put", STATUS_PATH);
    expect(retried.message).toBe("Snapshot already processed");
    expect(retried.data).toMatchObject({
      status: "completed",
      core_applied: true,
      counts: sampleCounts,
      failure: null,
      warnings: [warning],
      warning_count: 1,
      warnings_omitted: 0,
    });
    expect(await kit.stored(companyId, campaign.id)).toEqual({ snapshots: 1, chunks: 1, jobs: 1 });
  });

  it("answers an identical resubmit with 200 and the failure once failed", async () => {
    const { companyId, campaign, token } = await kit.setup();
    const body = rowsBody([accountRow(1)]);
    const url = kit.path(campaign.api_reference, "retry-failed");
    expect((await kit.send("PUT", url, token, body)).status).toBe(202);
    const failure = {
      code: "invalid_snapshot_row",
      message: "invoice_reference belongs to another debt",
      errors: [{ row_index: 0, field: "invoice_reference", reason: "belongs to another debt of the company" }],
      error_count: 1,
      errors_omitted: 0,
    };
    await kit.simulateWorker((await kit.snapshotRow(companyId, "retry-failed")).id, { status: "failed", failure });
    const retry = await kit.send("PUT", url, token, body);
    expect(retry.status).toBe(200);
    const retried = await expectContract(retry, "put", STATUS_PATH);
    expect(retried.data).toMatchObject({ status: "failed", core_applied: false, failure, counts: null });
    expect(retried.data).not.toHaveProperty("warnings");
  });

  it("refuses changed bytes under the same reference with 409 snapshot_reference_conflict (whitespace and key order count)", async () => {
    const { companyId, campaign, token } = await kit.setup();
    const url = kit.path(campaign.api_reference, "conflict");
    const body = '{"rows":[{"internal_id":"a-1","remaining_amount":10,"currency":"EUR"}]}';
    expect((await kit.send("PUT", url, token, body)).status).toBe(202);
    for (const changed of [
      '{"rows": [{"internal_id":"a-1","remaining_amount":10,"currency":"EUR"}]}',
      '{"rows":[{"remaining_amount":10,"internal_id":"a-1","currency":"EUR"}]}',
      '{"rows":[{"internal_id":"a-1","remaining_amount":11,"currency":"EUR"}]}',
      `${body}\n`,
    ]) {
      const response = await kit.send("PUT", url, token, changed);
      expect(response.status).toBe(409);
      expect(await expectContract(response, "put", STATUS_PATH)).toEqual({
        error: true,
        message: "Snapshot reference already used with different content",
        code: 409,
        error_code: "snapshot_reference_conflict",
      });
    }
    // Even an invalid body under a taken reference is a conflict, and nothing changes.
    expect((await kit.send("PUT", url, token, rowsBody([{ nope: 1 }]))).status).toBe(409);
    expect(await kit.stored(companyId, campaign.id)).toEqual({ snapshots: 1, chunks: 1, jobs: 1 });
  });

  it("refuses a one-request submit under a staged reference with 409 snapshot_delivery_mode_conflict", async () => {
    const { companyId, campaign, token } = await kit.setup();
    expect(
      (
        await kit.send(
          "POST",
          kit.path(campaign.api_reference, "staged-ref", "/start"),
          token,
          '{"expected_row_count":1}',
        )
      ).status,
    ).toBe(201);
    const response = await kit.send(
      "PUT",
      kit.path(campaign.api_reference, "staged-ref"),
      token,
      rowsBody([accountRow(1)]),
    );
    expect(response.status).toBe(409);
    expect(await expectContract(response, "put", STATUS_PATH)).toEqual({
      error: true,
      message: "Snapshot reference already used with delivery mode staged",
      code: 409,
      error_code: "snapshot_delivery_mode_conflict",
    });
    expect(await kit.stored(companyId, campaign.id)).toEqual({ snapshots: 1, chunks: 0, jobs: 0 });
  });

  it("refuses a staged start under a one-request reference with 409 snapshot_delivery_mode_conflict", async () => {
    const { campaign, token } = await kit.setup();
    expect(
      (await kit.send("PUT", kit.path(campaign.api_reference, "one-ref"), token, rowsBody([accountRow(1)]))).status,
    ).toBe(202);
    const response = await kit.send(
      "POST",
      kit.path(campaign.api_reference, "one-ref", "/start"),
      token,
      '{"expected_row_count":1}',
    );
    expect(response.status).toBe(409);
    expect(await expectContract(response, "post", START_PATH)).toEqual({
      error: true,
      message: "Snapshot reference already used with delivery mode one_request",
      code: 409,
      error_code: "snapshot_delivery_mode_conflict",
    });
  });

  it("does not count an identical retry against the 50-per-hour submit limit", async () => {
    const { campaign, token } = await kit.setup();
    const url = kit.path(campaign.api_reference, "limited");
    const body = rowsBody([accountRow(1)]);
    const first = await kit.send("PUT", url, token, body);
    expect(first.headers.get("ratelimit-remaining")).toBe("49");
    const retry = await kit.send("PUT", url, token, body);
    expect(retry.status).toBe(202);
    expect(retry.headers.get("ratelimit-remaining")).toBe("49");
    const other = await kit.send("PUT", kit.path(campaign.api_reference, "limited-2"), token, body);
    expect(other.headers.get("ratelimit-remaining")).toBe("48");
  });
});

describe("access", () => {
  it("answers 404 Campaign not found for an unknown campaign or another company's", async () => {
    const mine = await kit.setup();
    const other = await kit.setup();
    for (const campaign of ["no-such-campaign", other.campaign.api_reference]) {
      const response = await kit.send("PUT", kit.path(campaign, "ref-1"), mine.token, rowsBody([accountRow(1)]));
      expect(response.status).toBe(404);
      expect(await expectContract(response, "put", STATUS_PATH)).toEqual({
        error: true,
        message: "Campaign not found",
        code: 404,
      });
    }
    expect(await kit.stored(other.companyId, other.campaign.id)).toEqual({ snapshots: 0, chunks: 0, jobs: 0 });
    expect(await kit.stored(mine.companyId, mine.campaign.id)).toEqual({ snapshots: 0, chunks: 0, jobs: 0 });
  });

  it("keeps references per company: the same reference in two companies is two snapshots", async () => {
    const a = await kit.setup();
    const b = await kit.setup();
    expect(
      (await kit.send("PUT", kit.path(a.campaign.api_reference, "shared"), a.token, rowsBody([accountRow(1)]))).status,
    ).toBe(202);
    expect(
      (await kit.send("PUT", kit.path(b.campaign.api_reference, "shared"), b.token, rowsBody([accountRow(2)]))).status,
    ).toBe(202);
  });

  it("answers 403 with the exact message without debts:write, and 401 without a token", async () => {
    const { companyId, campaign, token } = await kit.setup("debts:read");
    const response = await kit.send("PUT", kit.path(campaign.api_reference, "ref"), token, rowsBody([accountRow(1)]));
    expect(response.status).toBe(403);
    expect(await expectContract(response, "put", STATUS_PATH)).toEqual({
      error: true,
      message: 'Required scope "debts:write" not found in token',
      code: 403,
    });
    const anonymous = await t.request(kit.path(campaign.api_reference, "ref"), {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: rowsBody([accountRow(1)]),
    });
    expect(anonymous.status).toBe(401);
    expect(await expectContract(anonymous, "put", STATUS_PATH)).toEqual({
      error: true,
      message: "Authentication credentials are missing or invalid",
      code: 401,
    });
    expect(await kit.stored(companyId, campaign.id)).toEqual({ snapshots: 0, chunks: 0, jobs: 0 });
  });
});
