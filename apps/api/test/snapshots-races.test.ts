import { chunkIdentityColumns, snapshotQueueName } from "@dc/db";
import { describe, expect, it } from "vitest";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import {
  accountRow,
  CHUNK_PATH,
  FINALIZE_PATH,
  rowsBody,
  rowsFrom,
  sha256,
  snapshotTestKit,
  STATUS_PATH,
} from "./support/snapshots.ts";

const t = await startTestApi();
const kit = snapshotTestKit(t);
const started = kit.started;

describe("concurrency and ordering", () => {
  it("turns 20 identical concurrent submits into exactly one snapshot and one job", async () => {
    const { companyId, campaign, token } = await kit.setup();
    const before = await kit.allApplyJobs();
    const body = rowsBody(Array.from({ length: 5000 }, (_, i) => accountRow(i)));
    const url = kit.path(campaign.api_reference, "concurrent");
    const responses = await Promise.all(Array.from({ length: 20 }, () => kit.send("PUT", url, token, body)));
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(202));
    const messages = await Promise.all(
      responses.map(async (response) => (await expectContract(response, "put", STATUS_PATH)).message),
    );
    expect(messages.filter((message) => message === "Snapshot accepted")).toHaveLength(1);
    expect(messages.filter((message) => message === "Snapshot already accepted")).toHaveLength(19);
    expect(await kit.stored(companyId, campaign.id)).toEqual({ snapshots: 1, chunks: 1, jobs: 1 });
    expect(await kit.allApplyJobs()).toBe(before + 1);
  });

  it("queues two snapshots of one campaign in one queue, in acceptance order", async () => {
    const { companyId, campaign, token } = await kit.setup();
    expect(
      (await kit.send("PUT", kit.path(campaign.api_reference, "first"), token, rowsBody([accountRow(1)]))).status,
    ).toBe(202);
    expect(
      (await kit.send("PUT", kit.path(campaign.api_reference, "second"), token, rowsBody([accountRow(2)]))).status,
    ).toBe(202);
    const first = await kit.snapshotRow(companyId, "first");
    const second = await kit.snapshotRow(companyId, "second");
    expect(first.accepted_seq).toBeLessThan(second.accepted_seq);
    const jobs = await kit.jobs(campaign.id);
    expect(jobs.map((job) => [job.queue_name, job.snapshot_id])).toEqual([
      [snapshotQueueName(campaign.id), first.id],
      [snapshotQueueName(campaign.id), second.id],
    ]);
  });
});

describe("acceptance order under concurrent submits", () => {
  it("queues the jobs of concurrent submits of one campaign in the order their snapshots were accepted", async () => {
    const { companyId, campaign, token } = await kit.setup();
    // Bodies of different sizes, so that without the acceptance lock the commits would overtake each other.
    const references = Array.from({ length: 12 }, (_, i) => `together-${i}`);
    const responses = await Promise.all(
      references.map((reference, i) =>
        kit.send(
          "PUT",
          kit.path(campaign.api_reference, reference),
          token,
          rowsBody(Array.from({ length: i % 2 === 0 ? 3_000 : 1 }, (_, row) => accountRow(row))),
        ),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(references.length).fill(202));
    const snapshots = await Promise.all(references.map((reference) => kit.snapshotRow(companyId, reference)));
    const byAcceptance = [...snapshots].sort((a, b) => a.accepted_seq - b.accepted_seq).map((snapshot) => snapshot.id);
    expect((await kit.jobs(campaign.id)).map((job) => job.snapshot_id)).toEqual(byAcceptance);
  });
});

describe("concurrent staged requests", () => {
  it("decides two concurrent uploads of one index: identical bytes give one 201 and one 200", async () => {
    const s = await started(1_000);
    const body = rowsFrom(0, 1_000);
    const responses = await Promise.all([s.chunk(0, body), s.chunk(0, body)]);
    expect(responses.map((response) => response.status).sort()).toEqual([200, 201]);
    for (const response of responses) await expectContract(response, "put", CHUNK_PATH);
    const row = await kit.snapshotRow(s.companyId, s.reference);
    expect(row).toMatchObject({ received_row_count: 1_000, received_chunk_count: 1, next_chunk_index: 1 });
  });

  it("decides two concurrent uploads of one index: different bytes give one 201 and one 409", async () => {
    const s = await started(1_000);
    const responses = await Promise.all([s.chunk(0, rowsFrom(0, 1_000)), s.chunk(0, rowsFrom(1_000, 1_000))]);
    expect(responses.map((response) => response.status).sort()).toEqual([201, 409]);
    const conflict = responses.find((response) => response.status === 409)!;
    expect((await expectContract(conflict, "put", CHUNK_PATH)).error_code).toBe("chunk_content_conflict");
    const row = await kit.snapshotRow(s.companyId, s.reference);
    expect(row).toMatchObject({ received_row_count: 1_000, received_chunk_count: 1, next_chunk_index: 1 });
  });

  it("turns concurrent finalizations into one job", async () => {
    const s = await started(2);
    expect((await s.chunk(0, rowsFrom(0, 2))).status).toBe(201);
    const responses = await Promise.all(Array.from({ length: 5 }, () => s.finalize()));
    expect(responses.map((response) => response.status)).toEqual(Array(5).fill(202));
    const messages = await Promise.all(
      responses.map(async (response) => (await expectContract(response, "post", FINALIZE_PATH)).message),
    );
    expect(messages.filter((message) => message === "Snapshot finalized")).toHaveLength(1);
    expect((await kit.jobs(s.campaign.id)).length).toBe(1);
  });
});

describe("a submit that loses the insert race", () => {
  /** Holds an uncommitted snapshot under `reference` until the request blocks on it, then commits. */
  const raceAgainst = async (reference: string, storedBody: string, sentBody: string) => {
    const { companyId, campaign, token } = await kit.setup();
    let pending: Promise<Response> | undefined;
    await t.db.transaction().execute(async (trx) => {
      await trx
        .insertInto("snapshots")
        .values({
          company_id: companyId,
          campaign_id: campaign.id,
          snapshot_reference: reference,
          delivery_mode: "one_request",
          status: "pending",
          body_sha256: sha256(storedBody),
          expected_row_count: 1,
          received_row_count: 1,
          received_chunk_count: 1,
          next_chunk_index: 1,
          integration_client_pk: null,
        })
        .execute();
      pending = kit.send("PUT", kit.path(campaign.api_reference, reference), token, sentBody);
      await kit.lockWait();
    });
    return { response: await pending!, companyId, campaign };
  };

  it("answers an identical body from the winner's snapshot (202) and writes nothing", async () => {
    const body = rowsBody([accountRow(1)]);
    const { response, companyId, campaign } = await raceAgainst("raced", body, body);
    expect(response.status).toBe(202);
    expect((await expectContract(response, "put", STATUS_PATH)).message).toBe("Snapshot already accepted");
    expect(await kit.stored(companyId, campaign.id)).toEqual({ snapshots: 1, chunks: 0, jobs: 0 });
  });

  it("answers other bytes with 409 snapshot_reference_conflict", async () => {
    const { response } = await raceAgainst("raced-other", rowsBody([accountRow(1)]), rowsBody([accountRow(2)]));
    expect(response.status).toBe(409);
    expect((await expectContract(response, "put", STATUS_PATH)).error_code).toBe("snapshot_reference_conflict");
  });
});

describe("a chunk upload that loses the race for its index", () => {
  /** Stores chunk 0 in a transaction held open until the request blocks on its primary key. */
  const raceAgainst = async (storedBody: string, sentBody: string) => {
    const s = await started(1);
    const row = await kit.snapshotRow(s.companyId, s.reference);
    let pending: Promise<Response> | undefined;
    await t.db.transaction().execute(async (trx) => {
      await trx
        .insertInto("snapshot_chunks")
        .values({
          snapshot_id: row.id,
          chunk_index: 0,
          company_id: s.companyId,
          body_sha256: sha256(storedBody),
          row_count: 1,
          body: storedBody,
          ...chunkIdentityColumns(JSON.parse(storedBody).rows),
        })
        .execute();
      await trx
        .updateTable("snapshots")
        .set({ next_chunk_index: 1, received_chunk_count: 1, received_row_count: 1 })
        .where("id", "=", row.id)
        .execute();
      pending = s.chunk(0, sentBody);
      await kit.lockWait();
    });
    return { ...s, response: await pending! };
  };

  it("answers identical bytes with 200 from the stored chunk", async () => {
    const body = rowsFrom(0, 1);
    const { response, companyId, campaign } = await raceAgainst(body, body);
    expect(response.status).toBe(200);
    expect((await expectContract(response, "put", CHUNK_PATH)).data).toMatchObject({
      chunk_index: 0,
      received_row_count: 1,
      next_chunk_index: 1,
    });
    expect(await kit.stored(companyId, campaign.id)).toEqual({ snapshots: 1, chunks: 1, jobs: 0 });
  });

  it("answers other bytes with 409 chunk_content_conflict", async () => {
    const { response } = await raceAgainst(rowsFrom(0, 1), rowsFrom(5, 1));
    expect(response.status).toBe(409);
    expect((await expectContract(response, "put", CHUNK_PATH)).error_code).toBe("chunk_content_conflict");
  });
});
