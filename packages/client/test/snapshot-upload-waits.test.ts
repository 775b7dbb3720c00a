/**
 * The staged upload's own recovery honours `Retry-After`, against a scripted
 * local server: a 429 (or 503) on the start or the finalize, which are POSTs
 * the transport never retries, is waited out before the upload resumes, as
 * the transport waits before retrying a chunk's PUT; a wait longer than the
 * policy's `maxRetryAfterSeconds` is not made; the caller's signal ends the
 * wait. Waits are recorded through the injected `sleep`, never slept.
 */
import { beforeEach, describe, expect, it } from "vitest";
import type { ClientOptions } from "../src/index.ts";
import { type SnapshotRow, uploadSnapshot } from "../src/snapshots/index.ts";
import { answers, startStub, stubClient } from "./support/stub-server.ts";

const stub = await startStub();
const SNAPSHOT = "/external-api/v1/campaigns/camp-1/snapshots/export-1";
const target = { campaign: "camp-1", reference: "export-1" };
const rows: SnapshotRow[] = [
  { internal_id: "ACC-1", remaining_amount: 10, currency: "EUR", firstname: "A", lastname: "One" },
  { internal_id: "ACC-2", remaining_amount: 20, currency: "EUR", firstname: "B", lastname: "Two" },
];

const acknowledgement = (status: string, received: number) => ({
  snapshot_reference: "export-1",
  status,
  delivery_mode: "staged",
  expected_row_count: rows.length,
  received_row_count: received,
  received_chunk_count: received === 0 ? 0 : 1,
  next_chunk_index: received === 0 ? 0 : 1,
  core_applied: false,
});
const notFound = { status: 404, body: { error: true, message: "Snapshot not found", code: 404 } };

const client = (options: Partial<ClientOptions> = {}) => stubClient(stub.baseUrl, options);

beforeEach(() => stub.reset());

describe("uploadSnapshot and Retry-After", () => {
  it("waits a 429's Retry-After on the start and the finalize before resuming; the chunk's PUT is retried by the transport", async () => {
    stub.script("GET", SNAPSHOT, notFound, notFound, answers.ok(acknowledgement("uploading", 2)));
    stub.script("POST", `${SNAPSHOT}/start`, answers.rateLimited("7"), answers.ok(acknowledgement("uploading", 0)));
    stub.script(
      "PUT",
      `${SNAPSHOT}/chunks/0`,
      answers.rateLimited("2"),
      answers.ok({ chunk_index: 0, accepted_row_count: 2 }),
    );
    stub.script("POST", `${SNAPSHOT}/finalize`, answers.rateLimited("3"), answers.ok(acknowledgement("pending", 2)));
    const { api, waits } = client();

    const ack = await uploadSnapshot(api, { ...target, rows });

    expect(ack).toMatchObject({ status: "pending", received_row_count: 2 });
    expect(waits).toEqual([7000, 2000, 3000]);
    expect(stub.count("POST", `${SNAPSHOT}/start`)).toBe(2);
    expect(stub.count("PUT", `${SNAPSHOT}/chunks/0`)).toBe(2);
    expect(stub.count("POST", `${SNAPSHOT}/finalize`)).toBe(2);
  });

  it("waits a 503's Retry-After on the start too", async () => {
    stub.script("GET", SNAPSHOT, notFound);
    stub.script("POST", `${SNAPSHOT}/start`, answers.unavailable("5"), answers.ok(acknowledgement("uploading", 0)));
    stub.script("PUT", `${SNAPSHOT}/chunks/0`, answers.ok({ chunk_index: 0, accepted_row_count: 2 }));
    stub.script("POST", `${SNAPSHOT}/finalize`, answers.ok(acknowledgement("pending", 2)));
    const { api, waits } = client();
    expect(await uploadSnapshot(api, { ...target, rows })).toMatchObject({ status: "pending" });
    expect(waits).toEqual([5000]);
  });

  it("gives up at once on a Retry-After longer than maxRetryAfterSeconds, as the transport does", async () => {
    stub.script("GET", SNAPSHOT, notFound);
    stub.script("POST", `${SNAPSHOT}/start`, answers.rateLimited("3600"));
    const { api, waits } = client({ retry: { maxRetryAfterSeconds: 60 } });
    const failure = await uploadSnapshot(api, { ...target, rows }).catch((e: unknown) => e);
    expect(failure).toMatchObject({ error: { kind: "rate_limited", retryAfterSeconds: 3600 } });
    expect(stub.count("POST", `${SNAPSHOT}/start`)).toBe(1);
    expect(waits).toEqual([]);
  });

  it("ends the wait, and the upload, when the caller's signal aborts", async () => {
    stub.script("GET", SNAPSHOT, notFound);
    stub.script("POST", `${SNAPSHOT}/start`, answers.rateLimited("30"), answers.ok(acknowledgement("uploading", 0)));
    const controller = new AbortController();
    const waits: number[] = [];
    const { api } = client({
      // A wait that never ends by itself: only the abort can end the upload.
      sleep: (ms) => {
        waits.push(ms);
        controller.abort();
        return new Promise<void>(() => {});
      },
    });
    const failure = await uploadSnapshot(api, { ...target, rows, signal: controller.signal }).catch((e: unknown) => e);
    expect(failure).toMatchObject({
      error: { kind: "network", cause: expect.objectContaining({ name: "AbortError" }) },
    });
    expect(waits).toEqual([30_000]);
    expect(stub.count("POST", `${SNAPSHOT}/start`)).toBe(1);
    expect(stub.count("GET", SNAPSHOT)).toBe(1);
  });
});
