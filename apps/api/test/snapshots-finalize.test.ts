import { snapshotQueueName } from "@dc/db";
import { sql } from "kysely";
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
  snapshotTestKit,
} from "./support/snapshots.ts";

const t = await startTestApi();
const kit = snapshotTestKit(t);
const started = kit.started;

describe("POST .../snapshots/{snapshotReference}/finalize", () => {
  it("refuses to finalize before every declared row arrived: 409 snapshot_incomplete", async () => {
    const s = await started(5);
    expect((await s.chunk(0, rowsFrom(0, 3))).status).toBe(201);
    const response = await s.finalize();
    expect(response.status).toBe(409);
    expect(await expectContract(response, "post", FINALIZE_PATH)).toEqual({
      error: true,
      message: "Snapshot incomplete: 3 of 5 expected rows received",
      code: 409,
      error_code: "snapshot_incomplete",
    });
    expect((await kit.snapshotRow(s.companyId, s.reference)).status).toBe("uploading");
  });

  it("makes a complete snapshot pending with one job (202); repeats answer 202, then 200 once completed", async () => {
    const s = await started(5);
    expect((await s.chunk(0, rowsFrom(0, 3))).status).toBe(201);
    expect((await s.chunk(1, rowsFrom(3, 2))).status).toBe(201);
    t.clock.advance(60_000);
    const response = await s.finalize();
    expect(response.status).toBe(202);
    expect(response.headers.get("location")).toBe(s.statusPath);
    const json = await expectContract(response, "post", FINALIZE_PATH);
    expect(json.message).toBe("Snapshot finalized");
    expect(json.data).toMatchObject({
      delivery_mode: "staged",
      status: "pending",
      core_applied: false,
      expected_row_count: 5,
      received_row_count: 5,
      received_chunk_count: 2,
      next_chunk_index: 2,
      created_at: TEST_START.toISOString(),
      updated_at: new Date(TEST_START.getTime() + 60_000).toISOString(),
    });
    t.clock.set(TEST_START);
    const row = await kit.snapshotRow(s.companyId, s.reference);
    expect(await kit.jobs(s.campaign.id)).toEqual([
      {
        id: expect.any(Number),
        queue_name: snapshotQueueName(s.campaign.id),
        key: `apply_snapshot:${row.id}`,
        max_attempts: 10,
        snapshot_id: row.id,
      },
    ]);
    const payload = await sql<{ payload: unknown }>`
      select payload from graphile_worker._private_jobs where key = ${`apply_snapshot:${row.id}`}`.execute(t.db);
    expect(payload.rows).toEqual([{ payload: { snapshot_id: row.id, company_id: s.companyId } }]);

    const again = await s.finalize();
    expect(again.status).toBe(202);
    expect((await expectContract(again, "post", FINALIZE_PATH)).message).toBe("Snapshot already finalized");
    await kit.simulateWorker(row.id, { status: "completed", counts: sampleCounts, warnings: [], warningCount: 0 });
    const done = await s.finalize();
    expect(done.status).toBe(200);
    expect((await expectContract(done, "post", FINALIZE_PATH)).data).toMatchObject({
      status: "completed",
      core_applied: true,
      counts: sampleCounts,
      warnings: [],
      warning_count: 0,
      warnings_omitted: 0,
    });
    expect(await kit.stored(s.companyId, s.campaign.id)).toEqual({ snapshots: 1, chunks: 2, jobs: 1 });
  });

  it("refuses a new chunk after finalization (409 snapshot_already_finalized) but replays an accepted one (200)", async () => {
    const s = await started(2);
    expect((await s.chunk(0, rowsFrom(0, 2))).status).toBe(201);
    expect((await s.finalize()).status).toBe(202);
    const late = await s.chunk(1, rowsBody([]));
    expect(late.status).toBe(409);
    expect(await expectContract(late, "put", CHUNK_PATH)).toEqual({
      error: true,
      message: "Snapshot already finalized: no further chunk is accepted",
      code: 409,
      error_code: "snapshot_already_finalized",
    });
    const replay = await s.chunk(0, rowsFrom(0, 2));
    expect(replay.status).toBe(200);
    expect((await expectContract(replay, "put", CHUNK_PATH)).data).toMatchObject({ status: "pending", chunk_index: 0 });
  });

  it("refuses an index above next_chunk_index with 409 chunk_out_of_order after finalization too (contract 4.2 rule 5)", async () => {
    const s = await started(2, "staged-skip");
    expect((await s.chunk(0, rowsFrom(0, 2))).status).toBe(201);
    expect((await s.finalize()).status).toBe(202);
    const skipping = await s.chunk(2, rowsBody([]));
    expect(skipping.status).toBe(409);
    expect(await expectContract(skipping, "put", CHUNK_PATH)).toEqual({
      error: true,
      message: "Chunk 2 is out of order: next_chunk_index is 1",
      code: 409,
      error_code: "chunk_out_of_order",
    });
    expect(await kit.stored(s.companyId, s.campaign.id)).toEqual({ snapshots: 1, chunks: 1, jobs: 1 });
  });

  it("orders a staged snapshot's job by its finalization, after a one-request snapshot accepted in between", async () => {
    const s = await started(1, "staged-early");
    expect((await s.chunk(0, rowsFrom(0, 1))).status).toBe(201);
    expect(
      (await kit.send("PUT", kit.path(s.campaign.api_reference, "one-between"), s.token, rowsFrom(0, 1))).status,
    ).toBe(202);
    expect((await s.finalize()).status).toBe(202);
    const staged = await kit.snapshotRow(s.companyId, "staged-early");
    const between = await kit.snapshotRow(s.companyId, "one-between");
    expect(between.accepted_seq).toBeLessThan(staged.accepted_seq);
    expect((await kit.jobs(s.campaign.id)).map((job) => job.snapshot_id)).toEqual([between.id, staged.id]);
  });

  it("finalizes an empty staged snapshot (expected_row_count 0) without chunks", async () => {
    const s = await started(0);
    const response = await s.finalize();
    expect(response.status).toBe(202);
    expect((await expectContract(response, "post", FINALIZE_PATH)).data).toMatchObject({
      status: "pending",
      received_chunk_count: 0,
    });
    expect((await kit.jobs(s.campaign.id)).length).toBe(1);
  });

  it("refuses duplicate identities and invoice references across chunks: 422 naming the rows, snapshot failed, no job", async () => {
    const s = await started(4);
    expect((await s.chunk(0, rowsBody([accountRow(0, { invoice_reference: "INV-1" }), accountRow(1)]))).status).toBe(
      201,
    );
    expect(
      (
        await s.chunk(
          1,
          rowsBody([accountRow(2, { invoice_reference: "INV-1" }), accountRow(3, { internal_id: "acct-1" })]),
        )
      ).status,
    ).toBe(201);
    const response = await s.finalize();
    expect(response.status).toBe(422);
    const errors = {
      "rows.2.invoice_reference": 'duplicate invoice_reference "INV-1" (first used by row 0)',
      "rows.3.internal_id": 'duplicate internal_id "acct-1" (first used by row 1)',
    };
    expect(await expectContract(response, "post", FINALIZE_PATH)).toEqual({
      error: true,
      message: "Validation failed",
      code: 422,
      error_code: "invalid_snapshot_row",
      details: errors,
      errors: Object.entries(errors).map(([property, message]) => ({ property, message })),
    });
    const failure = {
      code: "invalid_snapshot_row",
      message: "Snapshot rows are invalid",
      errors: [
        {
          row_index: 2,
          field: "invoice_reference",
          reason: 'duplicate invoice_reference "INV-1" (first used by row 0)',
        },
        { row_index: 3, field: "internal_id", reason: 'duplicate internal_id "acct-1" (first used by row 1)' },
      ],
      error_count: 2,
      errors_omitted: 0,
    };
    expect(await kit.snapshotRow(s.companyId, s.reference)).toMatchObject({
      status: "failed",
      failure,
      core_applied: false,
    });
    expect(await kit.stored(s.companyId, s.campaign.id)).toEqual({ snapshots: 1, chunks: 2, jobs: 0 });

    const again = await s.finalize();
    expect(again.status).toBe(200);
    expect((await expectContract(again, "post", FINALIZE_PATH)).data).toMatchObject({ status: "failed", failure });
  });

  it("refuses a stream switch across chunks", async () => {
    const s = await started(2);
    expect((await s.chunk(0, rowsBody([accountRow(0)]))).status).toBe(201);
    expect(
      (await s.chunk(1, rowsBody([{ invoice_reference: "INV-7", remaining_amount: 5, currency: "EUR" }]))).status,
    ).toBe(201);
    const response = await s.finalize();
    expect(response.status).toBe(422);
    expect(Object.keys((await expectContract(response, "post", FINALIZE_PATH)).details)).toEqual([
      "rows.1.internal_id",
    ]);
  });

  it("lists the first 100 errors across chunks and counts them all", async () => {
    const s = await started(240);
    expect((await s.chunk(0, rowsFrom(0, 120))).status).toBe(201);
    expect((await s.chunk(1, rowsFrom(0, 120))).status).toBe(201);
    const response = await s.finalize();
    expect(response.status).toBe(422);
    const details = (await expectContract(response, "post", FINALIZE_PATH)).details;
    expect(Object.keys(details)).toHaveLength(101);
    expect(details["rows.120.internal_id"]).toBe('duplicate internal_id "acct-0" (first used by row 0)');
    expect(details["rows.219.internal_id"]).toBe('duplicate internal_id "acct-99" (first used by row 99)');
    expect(details["rows"]).toBe("20 more row error(s) not listed; the first 100 are");
    const { failure } = await kit.snapshotRow(s.companyId, s.reference);
    expect(failure).toMatchObject({ code: "invalid_snapshot_row", error_count: 120, errors_omitted: 20 });
    const listed = (failure as { errors: ReadonlyArray<unknown> }).errors;
    expect(listed).toHaveLength(100);
    expect(listed[99]).toEqual({
      row_index: 219,
      field: "internal_id",
      reason: 'duplicate internal_id "acct-99" (first used by row 99)',
    });
  });

  it("answers 409 snapshot_delivery_mode_conflict for a one-request reference and 404 for an unknown one", async () => {
    const { campaign, token } = await kit.setup();
    expect((await kit.send("PUT", kit.path(campaign.api_reference, "one"), token, rowsFrom(0, 1))).status).toBe(202);
    const mode = await kit.send("POST", kit.path(campaign.api_reference, "one", "/finalize"), token);
    expect(mode.status).toBe(409);
    expect((await expectContract(mode, "post", FINALIZE_PATH)).error_code).toBe("snapshot_delivery_mode_conflict");
    const unknown = await kit.send("POST", kit.path(campaign.api_reference, "nothing", "/finalize"), token);
    expect(unknown.status).toBe(404);
    expect((await expectContract(unknown, "post", FINALIZE_PATH)).message).toBe("Snapshot not found");
  });

  it("answers 400 naming snapshotReference for a reference that is only a date or too long, changing nothing", async () => {
    const s = await started(1);
    expect((await s.chunk(0, rowsFrom(0, 1))).status).toBe(201);
    for (const reference of ["2026-11-21", "2026-11-21T10:00:00Z", "x".repeat(256)]) {
      const response = await kit.send("POST", kit.path(s.campaign.api_reference, reference, "/finalize"), s.token);
      expect(response.status, reference).toBe(400);
      const body = await expectContract(response, "post", FINALIZE_PATH);
      expect(body).toMatchObject({ error: true, message: "Validation failed", code: 400 });
      expect(Object.keys(body.details)).toEqual(["snapshotReference"]);
    }
    const dateOnly = await kit.send("POST", kit.path(s.campaign.api_reference, "2026-11-21", "/finalize"), s.token);
    expect((await expectContract(dateOnly, "post", FINALIZE_PATH)).details).toEqual({
      snapshotReference: "must identify one snapshot's content (an export id or a UUID), not a date alone",
    });
    expect(await kit.stored(s.companyId, s.campaign.id)).toEqual({ snapshots: 1, chunks: 1, jobs: 0 });
    expect((await kit.snapshotRow(s.companyId, s.reference)).status).toBe("uploading");
  });

  it("requires debts:write on chunks and finalize, and hides another company's snapshot (404)", async () => {
    const s = await started(1);
    const reader = await t.token(s.tenant, "debts:read");
    const chunk = await kit.send(
      "PUT",
      kit.path(s.campaign.api_reference, s.reference, "/chunks/0"),
      reader,
      rowsFrom(0, 1),
    );
    expect(chunk.status).toBe(403);
    expect((await expectContract(chunk, "put", CHUNK_PATH)).message).toBe(
      'Required scope "debts:write" not found in token',
    );
    const finalize = await kit.send("POST", kit.path(s.campaign.api_reference, s.reference, "/finalize"), reader);
    expect(finalize.status).toBe(403);
    expect((await expectContract(finalize, "post", FINALIZE_PATH)).message).toBe(
      'Required scope "debts:write" not found in token',
    );
    const intruder = await kit.setup();
    const hidden = await kit.send("POST", kit.path(s.campaign.api_reference, s.reference, "/finalize"), intruder.token);
    expect(hidden.status).toBe(404);
    expect((await expectContract(hidden, "post", FINALIZE_PATH)).message).toBe("Campaign not found");
    expect((await kit.snapshotRow(s.companyId, s.reference)).status).toBe("uploading");
  });
});
