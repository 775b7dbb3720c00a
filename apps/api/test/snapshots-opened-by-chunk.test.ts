/**
 * Contract 3.4: chunk 0 on a reference with no snapshot moves it from "none"
 * to `uploading` with 201. Its row count is declared by a later start or by
 * the finalization (docs/decisions/0580).
 */
import { describe, expect, it } from "vitest";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi, TEST_START } from "./support/harness.ts";
import {
  accountRow,
  CHUNK_PATH,
  FINALIZE_PATH,
  rowsBody,
  rowsFrom,
  snapshotTestKit,
  START_PATH,
} from "./support/snapshots.ts";

const t = await startTestApi();
const kit = snapshotTestKit(t);

/** A new company and the calls on its reference `reference`, which holds no snapshot yet. */
const fresh = async (reference = "implicit-1", scope?: string) => {
  const context = await kit.setup(scope);
  const api = context.campaign.api_reference;
  return {
    ...context,
    reference,
    statusPath: `/external-api/v1/campaigns/${api}/snapshots/${reference}`,
    chunk: (index: number, body: string) =>
      kit.send("PUT", kit.path(api, reference, `/chunks/${index}`), context.token, body),
    start: (count: number) =>
      kit.send(
        "POST",
        kit.path(api, reference, "/start"),
        context.token,
        JSON.stringify({ expected_row_count: count }),
      ),
    finalize: () => kit.send("POST", kit.path(api, reference, "/finalize"), context.token),
  };
};

describe("chunk 0 on a reference with no snapshot", () => {
  it("opens a staged snapshot: 201, uploading, the chunk's rows counted, no count declared, no job, no debt", async () => {
    const s = await fresh();
    const response = await s.chunk(0, rowsFrom(0, 3));
    expect(response.status).toBe(201);
    expect(response.headers.get("location")).toBe(s.statusPath);
    expect(await expectContract(response, "put", CHUNK_PATH)).toEqual({
      error: false,
      message: "Snapshot chunk accepted",
      data: {
        api_reference: s.campaign.api_reference,
        snapshot_reference: s.reference,
        delivery_mode: "staged",
        status: "uploading",
        core_applied: false,
        expected_row_count: 3,
        received_row_count: 3,
        received_chunk_count: 1,
        next_chunk_index: 1,
        counts: null,
        failure: null,
        created_at: TEST_START.toISOString(),
        updated_at: TEST_START.toISOString(),
        chunk_index: 0,
        status_url: s.statusPath,
      },
    });
    expect(await kit.snapshotRow(s.companyId, s.reference)).toMatchObject({
      delivery_mode: "staged",
      status: "uploading",
      expected_row_count: null,
      received_row_count: 3,
    });
    expect(await kit.stored(s.companyId, s.campaign.id)).toEqual({ snapshots: 1, chunks: 1, jobs: 0 });
    expect(await t.db.selectFrom("debts").select("id").where("company_id", "=", s.companyId).execute()).toEqual([]);
  });

  it("answers an identical retry with 200 and other bytes with 409 chunk_content_conflict", async () => {
    const s = await fresh();
    const body = rowsFrom(0, 2);
    expect((await s.chunk(0, body)).status).toBe(201);
    const retry = await s.chunk(0, body);
    expect(retry.status).toBe(200);
    expect((await expectContract(retry, "put", CHUNK_PATH)).message).toBe("Snapshot chunk already accepted");
    const changed = await s.chunk(0, rowsFrom(5, 2));
    expect(changed.status).toBe(409);
    expect((await expectContract(changed, "put", CHUNK_PATH)).error_code).toBe("chunk_content_conflict");
    expect(await kit.stored(s.companyId, s.campaign.id)).toEqual({ snapshots: 1, chunks: 1, jobs: 0 });
  });

  it("is finalized with the rows received as its count: 202 pending with one job", async () => {
    const s = await fresh();
    expect((await s.chunk(0, rowsFrom(0, 2))).status).toBe(201);
    expect((await s.chunk(1, rowsFrom(2, 3))).status).toBe(201);
    const finalized = await s.finalize();
    expect(finalized.status).toBe(202);
    expect((await expectContract(finalized, "post", FINALIZE_PATH)).data).toMatchObject({
      status: "pending",
      expected_row_count: 5,
      received_row_count: 5,
      received_chunk_count: 2,
    });
    expect(await kit.snapshotRow(s.companyId, s.reference)).toMatchObject({ status: "pending", expected_row_count: 5 });
    expect(await kit.stored(s.companyId, s.campaign.id)).toEqual({ snapshots: 1, chunks: 2, jobs: 1 });
    const late = await s.chunk(2, rowsFrom(5, 1));
    expect(late.status).toBe(409);
    expect((await expectContract(late, "put", CHUNK_PATH)).error_code).toBe("snapshot_already_finalized");
  });

  it("takes its count from a later start, which then bounds the chunks and the finalization", async () => {
    const s = await fresh();
    expect((await s.chunk(0, rowsFrom(0, 2))).status).toBe(201);
    const declared = await s.start(4);
    expect(declared.status).toBe(200);
    expect((await expectContract(declared, "post", START_PATH)).data).toMatchObject({
      status: "uploading",
      expected_row_count: 4,
      received_row_count: 2,
    });
    expect((await s.start(4)).status).toBe(200);
    const other = await s.start(5);
    expect(other.status).toBe(409);
    expect((await expectContract(other, "post", START_PATH)).error_code).toBe("snapshot_reference_conflict");

    const early = await s.finalize();
    expect(early.status).toBe(409);
    expect((await expectContract(early, "post", FINALIZE_PATH)).error_code).toBe("snapshot_incomplete");
    const over = await s.chunk(1, rowsFrom(2, 3));
    expect(over.status).toBe(422);
    expect(await expectContract(over, "put", CHUNK_PATH)).toMatchObject({
      error_code: "expected_row_count_exceeded",
      details: { rows: "3 row(s) would bring the snapshot to 5 rows, above its expected_row_count of 4" },
    });
    expect((await s.chunk(1, rowsFrom(2, 2))).status).toBe(201);
    expect((await s.finalize()).status).toBe(202);
    expect(await kit.stored(s.companyId, s.campaign.id)).toEqual({ snapshots: 1, chunks: 2, jobs: 1 });
  });

  it("refuses a later start declaring fewer rows than received: 409, the count stays undeclared", async () => {
    const s = await fresh();
    expect((await s.chunk(0, rowsFrom(0, 3))).status).toBe(201);
    const fewer = await s.start(2);
    expect(fewer.status).toBe(409);
    expect(await expectContract(fewer, "post", START_PATH)).toEqual({
      error: true,
      message: "Snapshot reference already used with different content",
      code: 409,
      error_code: "snapshot_reference_conflict",
    });
    expect(await kit.snapshotRow(s.companyId, s.reference)).toMatchObject({ expected_row_count: null });
  });

  it("answers 404 Snapshot not found for a chunk above 0, storing nothing", async () => {
    const s = await fresh();
    const response = await s.chunk(1, rowsFrom(0, 1));
    expect(response.status).toBe(404);
    expect(await expectContract(response, "put", CHUNK_PATH)).toEqual({
      error: true,
      message: "Snapshot not found",
      code: 404,
    });
    expect(await kit.stored(s.companyId, s.campaign.id)).toEqual({ snapshots: 0, chunks: 0, jobs: 0 });
  });

  it("stores nothing for an invalid chunk 0: 422 naming the row, 400 for a body that is not {rows}", async () => {
    const s = await fresh();
    const invalid = await s.chunk(0, rowsBody([accountRow(0, { remaining_amount: "lots" })]));
    expect(invalid.status).toBe(422);
    expect(Object.keys((await expectContract(invalid, "put", CHUNK_PATH)).details ?? {})).toEqual([
      "rows.0.remaining_amount",
    ]);
    const malformed = await s.chunk(0, '{"lines":[]}');
    expect(malformed.status).toBe(400);
    expect(await kit.stored(s.companyId, s.campaign.id)).toEqual({ snapshots: 0, chunks: 0, jobs: 0 });
  });

  it("answers 403 without debts:write and 404 on another company's campaign, storing nothing", async () => {
    const reader = await fresh("implicit-1", "debts:read");
    const forbidden = await reader.chunk(0, rowsFrom(0, 1));
    expect(forbidden.status).toBe(403);
    expect((await expectContract(forbidden, "put", CHUNK_PATH)).message).toBe(
      'Required scope "debts:write" not found in token',
    );
    const owner = await fresh();
    const intruder = await kit.setup();
    const response = await kit.send(
      "PUT",
      kit.path(owner.campaign.api_reference, owner.reference, "/chunks/0"),
      intruder.token,
      rowsFrom(0, 1),
    );
    expect(response.status).toBe(404);
    expect((await expectContract(response, "put", CHUNK_PATH)).message).toBe("Campaign not found");
    expect(await kit.stored(owner.companyId, owner.campaign.id)).toEqual({ snapshots: 0, chunks: 0, jobs: 0 });
    expect(await kit.stored(reader.companyId, reader.campaign.id)).toEqual({ snapshots: 0, chunks: 0, jobs: 0 });
  });

  it("opens one snapshot for concurrent chunk 0 uploads: one 201, the other 200", async () => {
    const s = await fresh();
    const body = rowsFrom(0, 2);
    const statuses = (await Promise.all([s.chunk(0, body), s.chunk(0, body)])).map((r) => r.status).sort();
    expect(statuses).toEqual([200, 201]);
    expect(await kit.stored(s.companyId, s.campaign.id)).toEqual({ snapshots: 1, chunks: 1, jobs: 0 });
    expect(await kit.snapshotRow(s.companyId, s.reference)).toMatchObject({
      received_row_count: 2,
      next_chunk_index: 1,
    });
  });
});
