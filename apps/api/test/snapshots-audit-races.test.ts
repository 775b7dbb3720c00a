/**
 * Races between the snapshot operations: each request is
 * held behind an open transaction of the other side until it waits for a
 * lock, so the interleaving is the one named, whatever the timing.
 */
import { expireStagedSnapshots } from "@dc/db";
import { holdTransaction } from "@dc/testing";
import { describe, expect, it } from "vitest";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import {
  FINALIZE_PATH,
  rowsBody,
  accountRow,
  rowsFrom,
  snapshotTestKit,
  START_PATH,
  STATUS_PATH,
  CHUNK_PATH,
} from "./support/snapshots.ts";

const t = await startTestApi();
const kit = snapshotTestKit(t);

const expiry = () => ({ idleDays: 7, limit: 1000, now: new Date(t.clock.now().getTime() + 8 * 24 * 60 * 60 * 1000) });

describe("races between snapshot operations", () => {
  it("answers a finalize that waited on the expiry's transaction with 409 snapshot_expired and queues no job", async () => {
    const s = await kit.started(2, "finalize-vs-expiry");
    expect((await s.chunk(0, rowsFrom(0, 2))).status).toBe(201);
    const expiring = await holdTransaction(t.db, async (trx) => {
      expect((await expireStagedSnapshots(trx, expiry())).snapshots).toBeGreaterThanOrEqual(1);
    });
    const waiting = s.finalize();
    await kit.lockWait();
    await expiring.release();
    const response = await waiting;
    expect(response.status).toBe(409);
    expect((await expectContract(response, "post", FINALIZE_PATH)).error_code).toBe("snapshot_expired");
    expect(await kit.stored(s.companyId, s.campaign.id)).toEqual({ snapshots: 1, chunks: 1, jobs: 0 });
    expect((await kit.snapshotRow(s.companyId, "finalize-vs-expiry")).status).toBe("failed");
  });

  /**
   * Sends `request` while an uncommitted snapshot of `reference` in the other
   * delivery mode holds the reference, waits until the request blocks on it,
   * then commits that snapshot; returns the request's answer.
   */
  const againstUncommitted = async (
    reference: string,
    mode: "staged" | "one_request",
    request: (setup: Awaited<ReturnType<typeof kit.setup>>) => Promise<Response>,
  ) => {
    const setup = await kit.setup();
    let pending: Promise<Response> | undefined;
    await t.db.transaction().execute(async (trx) => {
      await trx
        .insertInto("snapshots")
        .values({
          company_id: setup.companyId,
          campaign_id: setup.campaign.id,
          snapshot_reference: reference,
          delivery_mode: mode,
          status: mode === "staged" ? "uploading" : "pending",
          body_sha256: mode === "staged" ? null : Buffer.alloc(32),
          expected_row_count: 1,
          received_row_count: mode === "staged" ? 0 : 1,
          received_chunk_count: mode === "staged" ? 0 : 1,
          next_chunk_index: mode === "staged" ? 0 : 1,
          integration_client_pk: null,
        })
        .execute();
      pending = request(setup);
      await kit.lockWait();
    });
    return { setup, response: await pending! };
  };

  it("answers a one-request submit that waited on a staged start of its reference with 409 snapshot_delivery_mode_conflict", async () => {
    const { setup, response } = await againstUncommitted("mixed", "staged", ({ campaign, token }) =>
      kit.send("PUT", kit.path(campaign.api_reference, "mixed"), token, rowsBody([accountRow(1)])),
    );
    expect(response.status).toBe(409);
    expect((await expectContract(response, "put", STATUS_PATH)).error_code).toBe("snapshot_delivery_mode_conflict");
    expect(await kit.stored(setup.companyId, setup.campaign.id)).toEqual({ snapshots: 1, chunks: 0, jobs: 0 });
  });

  it("answers a staged start that waited on a one-request submit of its reference with 409 snapshot_delivery_mode_conflict", async () => {
    const { response } = await againstUncommitted("mixed-2", "one_request", ({ campaign, token }) =>
      kit.send("POST", kit.path(campaign.api_reference, "mixed-2", "/start"), token, '{"expected_row_count":1}'),
    );
    expect(response.status).toBe(409);
    expect((await expectContract(response, "post", START_PATH)).error_code).toBe("snapshot_delivery_mode_conflict");
  });

  it("refuses the index after next while the next one is being stored, then takes it", async () => {
    const s = await kit.started(4, "adjacent");
    const [first, second] = await Promise.all([s.chunk(0, rowsFrom(0, 2)), s.chunk(1, rowsFrom(2, 2))]);
    expect(first.status).toBe(201);
    expect([201, 409]).toContain(second.status);
    if (second.status === 409) {
      expect((await expectContract(second, "put", CHUNK_PATH)).error_code).toBe("chunk_out_of_order");
      expect((await s.chunk(1, rowsFrom(2, 2))).status).toBe(201);
    }
    expect(await kit.snapshotRow(s.companyId, "adjacent")).toMatchObject({
      received_row_count: 4,
      received_chunk_count: 2,
      next_chunk_index: 2,
    });
  });
});
