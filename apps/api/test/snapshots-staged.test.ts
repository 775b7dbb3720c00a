import { expireStagedSnapshots, expireStagedSnapshotsBatch, purgeSnapshotBodiesBatch } from "@dc/db";
import { holdTransaction } from "@dc/testing";
import { describe, expect, it } from "vitest";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi, TEST_START } from "./support/harness.ts";
import {
  accountRow,
  CHUNK_PATH,
  FINALIZE_PATH,
  rowsBody,
  rowsFrom,
  sampleCounts,
  sha256,
  snapshotTestKit,
  START_PATH,
  STATUS_PATH,
} from "./support/snapshots.ts";

const t = await startTestApi();
const kit = snapshotTestKit(t);
const started = kit.started;

describe("POST .../snapshots/{snapshotReference}/start", () => {
  it("opens an uploading staged snapshot: 201, Location and the acknowledgement; no job yet", async () => {
    const s = await started(5);
    expect(s.startResponse.headers.get("location")).toBe(s.statusPath);
    expect(await expectContract(s.startResponse, "post", START_PATH)).toEqual({
      error: false,
      message: "Staged snapshot started",
      data: {
        api_reference: s.campaign.api_reference,
        snapshot_reference: "staged-1",
        delivery_mode: "staged",
        status: "uploading",
        core_applied: false,
        expected_row_count: 5,
        received_row_count: 0,
        received_chunk_count: 0,
        next_chunk_index: 0,
        counts: null,
        failure: null,
        created_at: TEST_START.toISOString(),
        updated_at: TEST_START.toISOString(),
        status_url: s.statusPath,
      },
    });
    const row = await kit.snapshotRow(s.companyId, "staged-1");
    expect(row).toMatchObject({
      delivery_mode: "staged",
      status: "uploading",
      body_sha256: null,
      expected_row_count: 5,
    });
    expect(await kit.stored(s.companyId, s.campaign.id)).toEqual({ snapshots: 1, chunks: 0, jobs: 0 });
  });

  it("answers an identical start with 200 and another expected_row_count with 409 snapshot_reference_conflict", async () => {
    const s = await started(5);
    const url = kit.path(s.campaign.api_reference, s.reference, "/start");
    const retry = await kit.send("POST", url, s.token, '{ "expected_row_count": 5 }');
    expect(retry.status).toBe(200);
    expect(retry.headers.get("location")).toBe(s.statusPath);
    const body = await expectContract(retry, "post", START_PATH);
    expect(body.message).toBe("Staged snapshot already started");
    expect(body.data).toMatchObject({ status: "uploading", expected_row_count: 5 });

    const changed = await kit.send("POST", url, s.token, '{"expected_row_count":6}');
    expect(changed.status).toBe(409);
    expect(await expectContract(changed, "post", START_PATH)).toEqual({
      error: true,
      message: "Snapshot reference already used with different content",
      code: 409,
      error_code: "snapshot_reference_conflict",
    });
    expect(await kit.stored(s.companyId, s.campaign.id)).toEqual({ snapshots: 1, chunks: 0, jobs: 0 });
  });

  it("refuses an expected_row_count that is not an integer from 0 to 1,000,000", async () => {
    const { companyId, campaign, token } = await kit.setup();
    const outOfRange = { expected_row_count: "must be an integer from 0 to 1000000" };
    for (const [body, details] of [
      ['{"expected_row_count":-1}', outOfRange],
      ['{"expected_row_count":1000001}', outOfRange],
      ['{"expected_row_count":1.5}', outOfRange],
      ['{"expected_row_count":"5"}', outOfRange],
      // Past the safe integers the integer check fails before the range check, and says the same.
      ['{"expected_row_count":9007199254740993}', outOfRange],
      ["{}", { expected_row_count: "is missing" }],
      ['{"expected_row_count":5,"rows":[]}', { rows: 'unknown field "rows"' }],
    ] as const) {
      const response = await kit.send("POST", kit.path(campaign.api_reference, "bounds", "/start"), token, body);
      expect(response.status).toBe(400);
      const json = await expectContract(response, "post", START_PATH);
      expect(json.details, body).toEqual(details);
    }
    expect(await kit.stored(companyId, campaign.id)).toEqual({ snapshots: 0, chunks: 0, jobs: 0 });
  });

  it("refuses a start body that is not JSON with 415 and one over 1 MiB with 413 payload_too_large, storing nothing", async () => {
    const { companyId, campaign, token } = await kit.setup();
    const url = kit.path(campaign.api_reference, "limits", "/start");
    const text = await kit.send("POST", url, token, "expected_row_count=5", "text/plain");
    expect(text.status).toBe(415);
    expect(await expectContract(text, "post", START_PATH)).toEqual({
      error: true,
      message: "Unsupported media type: expected application/json",
      code: 415,
    });
    const huge = await kit.send("POST", url, token, `{"expected_row_count":5}${" ".repeat(1024 * 1024)}`);
    expect(huge.status).toBe(413);
    expect(await expectContract(huge, "post", START_PATH)).toEqual({
      error: true,
      message: "Request body too large: the limit is 1048576 bytes",
      code: 413,
      error_code: "payload_too_large",
    });
    expect(await kit.stored(companyId, campaign.id)).toEqual({ snapshots: 0, chunks: 0, jobs: 0 });
  });

  it("answers 404 for another company's campaign and 403 without debts:write", async () => {
    const mine = await kit.setup();
    const other = await kit.setup();
    const response = await kit.send(
      "POST",
      kit.path(other.campaign.api_reference, "x", "/start"),
      mine.token,
      '{"expected_row_count":1}',
    );
    expect(response.status).toBe(404);
    expect((await expectContract(response, "post", START_PATH)).message).toBe("Campaign not found");
    const reader = await kit.setup("debts:read");
    const forbidden = await kit.send(
      "POST",
      kit.path(reader.campaign.api_reference, "x", "/start"),
      reader.token,
      '{"expected_row_count":1}',
    );
    expect(forbidden.status).toBe(403);
    expect((await expectContract(forbidden, "post", START_PATH)).message).toBe(
      'Required scope "debts:write" not found in token',
    );
  });
});

describe("PUT .../snapshots/{snapshotReference}/chunks/{chunkIndex}", () => {
  it("stores chunk 0 of an uploading snapshot: 201, Location, counters, chunk_index; no debt changes", async () => {
    const s = await started(5);
    const debtsBefore = await t.db.selectFrom("debts").select("id").where("company_id", "=", s.companyId).execute();
    const body = rowsFrom(0, 3);
    const response = await s.chunk(0, body);
    expect(response.status).toBe(201);
    expect(response.headers.get("location")).toBe(s.statusPath);
    const json = await expectContract(response, "put", CHUNK_PATH);
    expect(json.message).toBe("Snapshot chunk accepted");
    expect(json.data).toEqual({
      api_reference: s.campaign.api_reference,
      snapshot_reference: s.reference,
      delivery_mode: "staged",
      status: "uploading",
      core_applied: false,
      expected_row_count: 5,
      received_row_count: 3,
      received_chunk_count: 1,
      next_chunk_index: 1,
      counts: null,
      failure: null,
      created_at: TEST_START.toISOString(),
      updated_at: TEST_START.toISOString(),
      status_url: s.statusPath,
      chunk_index: 0,
    });
    const chunks = await t.db.selectFrom("snapshot_chunks").selectAll().where("company_id", "=", s.companyId).execute();
    expect(chunks).toHaveLength(1);
    const stored = JSON.parse(body) as { rows: Array<{ internal_id?: string; invoice_reference?: string }> };
    expect(chunks[0]).toMatchObject({
      chunk_index: 0,
      row_count: 3,
      body,
      internal_ids: stored.rows.map((row) => row.internal_id ?? null),
      invoice_references: stored.rows.map((row) => row.invoice_reference ?? null),
    });
    expect(chunks[0]?.body_sha256).toEqual(sha256(body));
    expect(await t.db.selectFrom("debts").select("id").where("company_id", "=", s.companyId).execute()).toEqual(
      debtsBefore,
    );
    expect(await kit.stored(s.companyId, s.campaign.id)).toEqual({ snapshots: 1, chunks: 1, jobs: 0 });
  });

  it("takes the next index (counters rise), answers an identical retry with 200 and changed bytes with 409 chunk_content_conflict", async () => {
    const s = await started(5);
    expect((await s.chunk(0, rowsFrom(0, 3))).status).toBe(201);
    const second = await s.chunk(1, rowsFrom(3, 2));
    expect(second.status).toBe(201);
    expect((await expectContract(second, "put", CHUNK_PATH)).data).toMatchObject({
      received_row_count: 5,
      received_chunk_count: 2,
      next_chunk_index: 2,
      chunk_index: 1,
    });

    const retry = await s.chunk(0, rowsFrom(0, 3));
    expect(retry.status).toBe(200);
    expect(retry.headers.get("location")).toBe(s.statusPath);
    const retried = await expectContract(retry, "put", CHUNK_PATH);
    expect(retried.message).toBe("Snapshot chunk already accepted");
    expect(retried.data).toMatchObject({
      chunk_index: 0,
      received_row_count: 5,
      received_chunk_count: 2,
      next_chunk_index: 2,
    });

    const changed = await s.chunk(0, `${rowsFrom(0, 3)} `);
    expect(changed.status).toBe(409);
    expect(await expectContract(changed, "put", CHUNK_PATH)).toEqual({
      error: true,
      message: "Chunk 0 was already accepted with different content",
      code: 409,
      error_code: "chunk_content_conflict",
    });
    expect(await kit.stored(s.companyId, s.campaign.id)).toEqual({ snapshots: 1, chunks: 2, jobs: 0 });
  });

  it("refuses an index above next_chunk_index with 409 chunk_out_of_order", async () => {
    const s = await started(5);
    const response = await s.chunk(1, rowsFrom(0, 1));
    expect(response.status).toBe(409);
    expect(await expectContract(response, "put", CHUNK_PATH)).toEqual({
      error: true,
      message: "Chunk 1 is out of order: next_chunk_index is 0",
      code: 409,
      error_code: "chunk_out_of_order",
    });
    expect(await kit.stored(s.companyId, s.campaign.id)).toEqual({ snapshots: 1, chunks: 0, jobs: 0 });
  });

  it("refuses rows beyond expected_row_count with 422 expected_row_count_exceeded", async () => {
    const s = await started(3);
    expect((await s.chunk(0, rowsFrom(0, 2))).status).toBe(201);
    const response = await s.chunk(1, rowsFrom(2, 2));
    expect(response.status).toBe(422);
    const json = await expectContract(response, "put", CHUNK_PATH);
    expect(json).toMatchObject({ code: 422, message: "Validation failed", error_code: "expected_row_count_exceeded" });
    expect(json.details).toEqual({
      rows: "2 row(s) would bring the snapshot to 4 rows, above its expected_row_count of 3",
    });
    expect(await kit.stored(s.companyId, s.campaign.id)).toEqual({ snapshots: 1, chunks: 1, jobs: 0 });
  });

  it("validates rows with snapshot-wide indexes; an invalid chunk stores nothing and can be sent again corrected", async () => {
    const s = await started(4);
    expect((await s.chunk(0, rowsFrom(0, 2))).status).toBe(201);
    const bad = await s.chunk(1, rowsBody([accountRow(2), accountRow(3, { coverage: 1 })]));
    expect(bad.status).toBe(422);
    const json = await expectContract(bad, "put", CHUNK_PATH);
    expect(json).toMatchObject({
      error_code: "invalid_snapshot_row",
      details: { "rows.3.coverage": '"coverage" is not accepted in snapshot rows' },
    });
    expect(await kit.stored(s.companyId, s.campaign.id)).toEqual({ snapshots: 1, chunks: 1, jobs: 0 });
    expect((await s.chunk(1, rowsFrom(2, 2))).status).toBe(201);
  });

  it("applies the payment_plan rules of the one-request submit to chunk rows", async () => {
    const s = await started(2);
    expect((await s.chunk(0, rowsFrom(0, 1))).status).toBe(201);
    const plan = {
      external_reference: "plan-1",
      status: "active",
      installments: [{ external_reference: "i-1", amount: 60, payment_date: "2026-12-01", status: "pending" }],
    };
    const response = await s.chunk(1, rowsBody([accountRow(1, { remaining_amount: 100, payment_plan: plan })]));
    expect(response.status).toBe(422);
    expect((await expectContract(response, "put", CHUNK_PATH)).details).toEqual({
      "rows.1.payment_plan": "sum of pending installments (60.00) does not equal remaining_amount (100.00)",
    });
  });

  it("tolerates accept_expensive_destination of any JSON type in chunk rows, acknowledging them as without it (contract 9.3)", async () => {
    const values = [true, false, "no", 0, 1.5, null, { a: [1] }, [1, "x"]];
    const acknowledge = async (withLegacyKey: boolean) => {
      const s = await started(values.length);
      const rows = values.map((value, i) => accountRow(i, withLegacyKey ? { accept_expensive_destination: value } : {}));
      const response = await s.chunk(0, rowsBody(rows));
      expect(response.status).toBe(201);
      const { data } = await expectContract<{ data: Record<string, unknown> }>(response, "put", CHUNK_PATH);
      expect(await kit.stored(s.companyId, s.campaign.id)).toEqual({ snapshots: 1, chunks: 1, jobs: 0 });
      // What names the snapshot differs between the two companies; everything else must not.
      const { api_reference: _api, status_url: _url, ...rest } = data;
      return rest;
    };
    expect(await acknowledge(true)).toEqual(await acknowledge(false));
  });

  it("accepts a chunk of exactly 20,000 rows (contract part 8), and one more row over the declared count is 422", async () => {
    const s = await started(20_000);
    const full = await s.chunk(0, rowsFrom(0, 20_000));
    expect(full.status).toBe(201);
    expect((await expectContract(full, "put", CHUNK_PATH)).data.received_row_count).toBe(20_000);
    const extra = await s.chunk(1, rowsFrom(20_000, 1));
    expect(extra.status).toBe(422);
    expect((await expectContract(extra, "put", CHUNK_PATH)).error_code).toBe("expected_row_count_exceeded");
    expect(await kit.stored(s.companyId, s.campaign.id)).toEqual({ snapshots: 1, chunks: 1, jobs: 0 });
  });

  it("refuses bad chunk bodies and indexes with 400 naming the field, and a body over 10 MiB with 413", async () => {
    const s = await started(5);
    const tooMany = await s.chunk(0, rowsBody(Array.from({ length: 20_001 }, (_, i) => accountRow(i))));
    expect(tooMany.status).toBe(400);
    expect((await expectContract(tooMany, "put", CHUNK_PATH)).error_code).toBe("too_many_rows");
    const big = await s.chunk(0, rowsFrom(0, 1) + " ".repeat(10 * 1024 * 1024));
    expect(big.status).toBe(413);
    expect((await expectContract(big, "put", CHUNK_PATH)).error_code).toBe("payload_too_large");
    for (const index of ["-1", "01", "1.5", "abc", "1000001"]) {
      const response = await kit.send(
        "PUT",
        kit.path(s.campaign.api_reference, s.reference, `/chunks/${index}`),
        s.token,
        rowsFrom(0, 1),
      );
      expect(response.status).toBe(400);
      expect(Object.keys((await expectContract(response, "put", CHUNK_PATH)).details)).toEqual(["chunkIndex"]);
    }
    const unknownKey = await s.chunk(0, '{"rows":[],"expected_row_count":5}');
    expect(unknownKey.status).toBe(400);
    expect(await kit.stored(s.companyId, s.campaign.id)).toEqual({ snapshots: 1, chunks: 0, jobs: 0 });
  });

  it("refuses a chunk body that is not JSON with 415, storing nothing", async () => {
    const s = await started(5);
    const response = await kit.send(
      "PUT",
      kit.path(s.campaign.api_reference, s.reference, "/chunks/0"),
      s.token,
      rowsFrom(0, 1),
      "text/csv",
    );
    expect(response.status).toBe(415);
    expect(await expectContract(response, "put", CHUNK_PATH)).toEqual({
      error: true,
      message: "Unsupported media type: expected application/json",
      code: 415,
    });
    expect(await kit.stored(s.companyId, s.campaign.id)).toEqual({ snapshots: 1, chunks: 0, jobs: 0 });
    expect(await kit.snapshotRow(s.companyId, s.reference)).toMatchObject({ status: "uploading" });
  });

  it("answers 404 Snapshot not found for chunk 1 of a reference never started, and 409 for a one-request reference", async () => {
    const { companyId, campaign, token } = await kit.setup();
    const unknown = await kit.send(
      "PUT",
      kit.path(campaign.api_reference, "never-started", "/chunks/1"),
      token,
      rowsFrom(0, 1),
    );
    expect(unknown.status).toBe(404);
    expect(await expectContract(unknown, "put", CHUNK_PATH)).toEqual({
      error: true,
      message: "Snapshot not found",
      code: 404,
    });
    expect((await kit.send("PUT", kit.path(campaign.api_reference, "one"), token, rowsFrom(0, 1))).status).toBe(202);
    const mode = await kit.send("PUT", kit.path(campaign.api_reference, "one", "/chunks/0"), token, rowsFrom(0, 1));
    expect(mode.status).toBe(409);
    expect((await expectContract(mode, "put", CHUNK_PATH)).error_code).toBe("snapshot_delivery_mode_conflict");
    expect(await kit.stored(companyId, campaign.id)).toEqual({ snapshots: 1, chunks: 1, jobs: 1 });
  });

  it("hides another company's snapshot: 404", async () => {
    const s = await started(2);
    const intruder = await kit.setup();
    const response = await kit.send(
      "PUT",
      kit.path(s.campaign.api_reference, s.reference, "/chunks/0"),
      intruder.token,
      rowsFrom(0, 1),
    );
    expect(response.status).toBe(404);
    expect((await expectContract(response, "put", CHUNK_PATH)).message).toBe("Campaign not found");
    expect(await kit.stored(s.companyId, s.campaign.id)).toEqual({ snapshots: 1, chunks: 0, jobs: 0 });
  });
});

describe("retries after the retention purge cleared a settled snapshot's bodies (docs/decisions/0021)", () => {
  /** The hourly purge, with every settled snapshot past its cutoff. */
  const purgeSettledBodies = async () => {
    const later = new Date(t.clock.now().getTime() + 1000);
    const purged = await purgeSnapshotBodiesBatch(t.db, { cutoff: later, limit: 1000, now: later });
    expect(purged.chunks).toBeGreaterThan(0);
  };
  const bodiesOf = async (snapshotId: number) =>
    (await t.db.selectFrom("snapshot_chunks").select("body").where("snapshot_id", "=", snapshotId).execute()).map(
      (chunk) => chunk.body,
    );

  it("still answers an identical chunk with 200 and changed bytes with 409, from the kept digest", async () => {
    const s = await started(5, "staged-purged");
    expect((await s.chunk(0, rowsFrom(0, 3))).status).toBe(201);
    expect((await s.chunk(1, rowsFrom(3, 2))).status).toBe(201);
    expect((await s.finalize()).status).toBe(202);
    const snapshot = await kit.snapshotRow(s.companyId, "staged-purged");
    await kit.simulateWorker(snapshot.id, { status: "completed", counts: sampleCounts, warnings: [], warningCount: 0 });
    await purgeSettledBodies();
    expect(await bodiesOf(snapshot.id)).toEqual([null, null]);

    const retry = await s.chunk(1, rowsFrom(3, 2));
    expect(retry.status).toBe(200);
    expect((await expectContract(retry, "put", CHUNK_PATH)).message).toBe("Snapshot chunk already accepted");
    const changed = await s.chunk(1, `${rowsFrom(3, 2)} `);
    expect(changed.status).toBe(409);
    expect((await expectContract(changed, "put", CHUNK_PATH)).error_code).toBe("chunk_content_conflict");
    expect(await kit.stored(s.companyId, s.campaign.id)).toEqual({ snapshots: 1, chunks: 2, jobs: 1 });
  });

  it("still answers an identical one-request submit with 200 and the result, and changed bytes with 409", async () => {
    const { companyId, campaign, token } = await kit.setup();
    const body = rowsBody([accountRow(1), accountRow(2)]);
    const url = kit.path(campaign.api_reference, "one-request-purged");
    expect((await kit.send("PUT", url, token, body)).status).toBe(202);
    const snapshot = await kit.snapshotRow(companyId, "one-request-purged");
    await kit.simulateWorker(snapshot.id, { status: "completed", counts: sampleCounts, warnings: [], warningCount: 0 });
    await purgeSettledBodies();
    expect(await bodiesOf(snapshot.id)).toEqual([null]);

    const retry = await kit.send("PUT", url, token, body);
    expect(retry.status).toBe(200);
    expect((await expectContract(retry, "put", STATUS_PATH)).data).toMatchObject({ status: "completed", counts: sampleCounts });
    const changed = await kit.send("PUT", url, token, `${body} `);
    expect(changed.status).toBe(409);
    expect((await expectContract(changed, "put", STATUS_PATH)).error_code).toBe("snapshot_reference_conflict");
    expect(await kit.stored(companyId, campaign.id)).toEqual({ snapshots: 1, chunks: 1, jobs: 1 });
  });
});

describe("a staged snapshot left uploading expires (docs/decisions/0022)", () => {
  /** The worker's hourly expiry, run as if eight days had passed since the last chunk. */
  const expiry = () => ({ idleDays: 7, limit: 1000, now: new Date(t.clock.now().getTime() + 8 * 24 * 60 * 60 * 1000) });
  const expiredAnswer = {
    error: true,
    message: "Snapshot expired before it was finalized: start a new snapshot under a new reference",
    code: 409,
    error_code: "snapshot_expired",
  };

  it("reads as failed with snapshot_expired; a new chunk or a finalize is 409 snapshot_expired, storing nothing", async () => {
    const s = await started(5, "staged-expired");
    expect((await s.chunk(0, rowsFrom(0, 3))).status).toBe(201);
    expect((await expireStagedSnapshotsBatch(t.db, expiry())).snapshots).toBeGreaterThanOrEqual(1);

    const read = await kit.send("GET", kit.path(s.campaign.api_reference, s.reference), s.token);
    expect(read.status).toBe(200);
    expect((await expectContract(read, "get", STATUS_PATH)).data).toMatchObject({
      status: "failed",
      core_applied: false,
      received_row_count: 3,
      received_chunk_count: 1,
      next_chunk_index: 1,
      counts: null,
      failure: {
        code: "snapshot_expired",
        message: "Staged snapshot not finalized within 7 days of its start or last chunk",
        errors: [],
        error_count: 0,
        errors_omitted: 0,
      },
    });

    const next = await s.chunk(1, rowsFrom(3, 2));
    expect(next.status).toBe(409);
    expect(await expectContract(next, "put", CHUNK_PATH)).toEqual(expiredAnswer);
    const finalize = await s.finalize();
    expect(finalize.status).toBe(409);
    expect(await expectContract(finalize, "post", FINALIZE_PATH)).toEqual(expiredAnswer);

    // What was accepted still answers from its digest, and a start retry reads the state reached.
    const retry = await s.chunk(0, rowsFrom(0, 3));
    expect(retry.status).toBe(200);
    expect((await expectContract(retry, "put", CHUNK_PATH)).data).toMatchObject({ status: "failed", chunk_index: 0 });
    const changed = await s.chunk(0, `${rowsFrom(0, 3)} `);
    expect((await expectContract(changed, "put", CHUNK_PATH)).error_code).toBe("chunk_content_conflict");
    const start = await kit.send("POST", kit.path(s.campaign.api_reference, s.reference, "/start"), s.token, '{ "expected_row_count": 5 }');
    expect(start.status).toBe(200);
    expect((await expectContract(start, "post", START_PATH)).data).toMatchObject({ status: "failed" });
    expect(await kit.stored(s.companyId, s.campaign.id)).toEqual({ snapshots: 1, chunks: 1, jobs: 0 });
  });

  it("answers a chunk that waited on the expiry's transaction with 409 snapshot_expired, rolling the chunk back", async () => {
    const s = await started(5, "staged-expiring");
    expect((await s.chunk(0, rowsFrom(0, 3))).status).toBe(201);
    const expiring = await holdTransaction(t.db, async (trx) => {
      expect((await expireStagedSnapshots(trx, expiry())).snapshots).toBeGreaterThanOrEqual(1);
    });
    const waiting = s.chunk(1, rowsFrom(3, 2));
    await kit.lockWait();
    await expiring.release();
    const response = await waiting;
    expect(response.status).toBe(409);
    expect(await expectContract(response, "put", CHUNK_PATH)).toEqual(expiredAnswer);
    expect(await kit.stored(s.companyId, s.campaign.id)).toEqual({ snapshots: 1, chunks: 1, jobs: 0 });
  });

  it("leaves a finalized snapshot as it was, and an upload within its days until they pass", async () => {
    const s = await started(2, "staged-finalized-in-time");
    expect((await s.chunk(0, rowsFrom(0, 2))).status).toBe(201);
    expect((await s.finalize()).status).toBe(202);
    const fresh = await started(5, "staged-fresh");
    await expireStagedSnapshotsBatch(t.db, { ...expiry(), now: t.clock.now() });
    expect((await kit.snapshotRow(fresh.companyId, "staged-fresh")).status).toBe("uploading");
    await expireStagedSnapshotsBatch(t.db, expiry());
    expect((await kit.snapshotRow(s.companyId, "staged-finalized-in-time")).status).toBe("pending");
    expect((await kit.snapshotRow(fresh.companyId, "staged-fresh")).status).toBe("failed");
  });
});
