/**
 * Snapshot helpers against the real api and worker: client-side validation
 * equal to the server's answer, deterministic chunking under both limits,
 * a staged upload that fails mid-way and resumes from `next_chunk_index`,
 * one that expired before it could resume, and polling until the worker has
 * applied it.
 */
// eslint-disable-next-line no-restricted-imports -- the test runs the worker's expiry on its database; the client's src never imports @dc/db
import { expireStagedSnapshotsBatch } from "@dc/db";
import { describe, expect, it } from "vitest";
import { createClient, DebtCollectionError, unwrap } from "../src/index.ts";
import {
  getSnapshot,
  planChunks,
  prevalidateSnapshot,
  sendSnapshot,
  type SnapshotRow,
  submitSnapshot,
  uploadSnapshot,
  waitForSnapshot,
} from "../src/snapshots/index.ts";
import { startSystem, startWorkerProcess } from "./support/processes.ts";
import { recordingFetch } from "./support/recording-fetch.ts";

const { baseUrl, tenant, database } = await startSystem("Snapshot Sync BV");
const campaign = tenant.campaign_api_reference;
const credentials = { baseUrl, clientId: tenant.client_id, clientSecret: tenant.client_secret };

const row = (i: number, extra: Partial<SnapshotRow> = {}): SnapshotRow => ({
  internal_id: `ACC-${String(i).padStart(4, "0")}`,
  remaining_amount: 100 + i,
  currency: "EUR",
  firstname: "Row",
  lastname: `Number ${i}`,
  ...extra,
});

const invalidRows = [
  row(0),
  row(1, { remaining_amount: -5 }),
  row(2, { currency: "EURO" }),
  row(0, { remaining_amount: 7 }),
  { ...row(4), snapshot_at: "2026-11-21" },
  row(5, {
    payment_plan: {
      external_reference: "PLAN-5",
      status: "active",
      installments: [{ external_reference: "I-1", amount: 50, payment_date: "2026-12-01", status: "pending" }],
    },
  }),
  row(6, { lastname: "lone \ud800 surrogate" }),
  { remaining_amount: 1, currency: "EUR" },
] as unknown as SnapshotRow[];

describe("prevalidateSnapshot", () => {
  it("reports exactly what the api answers for the same rows", async () => {
    const local = prevalidateSnapshot(invalidRows);
    expect(local).toMatchObject({ kind: "api", status: 422, errorCode: "invalid_snapshot_row" });
    expect(Object.keys(local?.details ?? {})).toEqual([
      "rows.1.remaining_amount",
      "rows.2.currency",
      "rows.3.internal_id",
      "rows.4.snapshot_at",
      "rows.5.payment_plan",
      "rows.6.lastname",
      "rows.7.internal_id",
    ]);

    const wire = recordingFetch();
    const api = createClient({ ...credentials, fetch: wire.fetch });
    const sent = await submitSnapshot(api, { campaign, reference: "invalid-1", rows: invalidRows, validate: false }).catch((e: unknown) => e);
    expect(sent).toBeInstanceOf(DebtCollectionError);
    expect((sent as DebtCollectionError).error).toEqual(local);

    // With validation on, nothing leaves the client and the error is the same.
    const before = wire.sent.length;
    const refused = await sendSnapshot(api, { campaign, reference: "invalid-2", rows: invalidRows }).catch((e: unknown) => e);
    expect((refused as DebtCollectionError).error).toEqual(local);
    expect(wire.sent.length).toBe(before);
  });

  it("reports a body the api refuses before reading rows (NUL) with the api's 400", async () => {
    const rows = [row(1), row(2, { lastname: "nul\u0000byte" }), row(3, { currency: "EURO" })];
    const local = prevalidateSnapshot(rows);
    expect(local).toEqual({ kind: "api", status: 400, code: 400, message: "Validation failed", details: { "rows.1.lastname": "must not contain NUL characters" } });
    const api = createClient(credentials);
    const sent = await submitSnapshot(api, { campaign, reference: "invalid-3", rows, validate: false }).catch((e: unknown) => e);
    expect((sent as DebtCollectionError).error).toEqual(local);
  });

  it("refuses installment dates the api cannot store, as the api does when submitting", async () => {
    const rows = [
      row(1, {
        remaining_amount: 0,
        payment_plan: {
          external_reference: "PLAN-1",
          status: "active",
          installments: [
            {
              external_reference: "I-1",
              amount: 50,
              payment_date: "0000-06-01",
              status: "paid",
              paid_at: "0001-01-01T00:30:00+01:00",
              external_payment_id: "PAY-1",
            },
          ],
        },
      }),
    ];
    const local = prevalidateSnapshot(rows);
    expect(local?.details).toEqual({
      "rows.0.payment_plan.installments.0.payment_date": "must be 0001-01-01 or later",
      "rows.0.payment_plan.installments.0.paid_at": "must be an instant between the years 0001 and 9999",
    });
    const api = createClient(credentials);
    const sent = await submitSnapshot(api, { campaign, reference: "invalid-dates", rows, validate: false }).catch(
      (e: unknown) => e,
    );
    expect((sent as DebtCollectionError).error).toEqual(local);
  });

  it("accepts valid rows", () => {
    expect(prevalidateSnapshot([row(1), row(2)])).toBeUndefined();
  });

  it("judges the rows as JSON sends them: an optional key set to undefined is left out, not refused", async () => {
    // What an integration mapping nullable columns writes (`email: account.email ?? undefined`); TypeScript
    // accepts it unless the project enables exactOptionalPropertyTypes, and JSON.stringify drops the keys.
    const rows = [
      { ...row(1), internal_id: "UNDEFINED-1", email: undefined, phone: undefined, invoice_reference: undefined, payment_plan: undefined },
      {
        ...row(2),
        internal_id: "UNDEFINED-2",
        payment_plan: {
          external_reference: "PLAN-2",
          status: "active",
          installments: [{ external_reference: "I-1", amount: 102, payment_date: "2026-12-01", status: "pending", paid_at: undefined }],
        },
      },
    ] as unknown as SnapshotRow[];
    expect(prevalidateSnapshot(rows)).toBeUndefined();

    const api = createClient(credentials);
    const sent = await submitSnapshot(api, { campaign, reference: "undefined-keys", rows, validate: false });
    expect(sent.status).toBe("pending");
    expect((await sendSnapshot(api, { campaign, reference: "undefined-keys", rows })).status).toMatch(/^(pending|processing|completed)$/);
  });

  it("reports values JSON cannot carry as the api reads them (NaN and Infinity as null, a Date as its ISO text)", async () => {
    const rows = [
      row(0),
      row(1, { remaining_amount: Number.NaN }),
      row(2, { remaining_amount: Number.POSITIVE_INFINITY }),
      row(3, {
        payment_plan: {
          external_reference: "PLAN-3",
          status: "active",
          installments: [{ external_reference: "I-1", amount: 103, payment_date: new Date("2026-12-01") as unknown as string, status: "pending" }],
        },
      }),
    ];
    const local = prevalidateSnapshot(rows);
    const api = createClient(credentials);
    const sent = await submitSnapshot(api, { campaign, reference: "json-values", rows, validate: false }).catch((e: unknown) => e);
    expect((sent as DebtCollectionError).error).toEqual(local);
    expect(local?.details?.["rows.1.remaining_amount"]).toBe("must be a number");
  });
});

describe("planChunks", () => {
  const rows = Array.from({ length: 25 }, (_, i) => row(i));

  it("splits by row count and writes each body exactly as JSON.stringify would", () => {
    const chunks = planChunks(rows, { maxRows: 10 });
    expect(chunks.map((chunk) => [chunk.firstRowIndex, chunk.rows.length])).toEqual([[0, 10], [10, 10], [20, 5]]);
    for (const chunk of chunks) {
      expect(chunk.body).toBe(JSON.stringify({ rows: chunk.rows }));
      expect(chunk.bytes).toBe(Buffer.byteLength(chunk.body));
    }
    expect(planChunks(rows, { maxRows: 10 })).toEqual(chunks);
  });

  it("splits by bytes, filling each chunk up to the limit", () => {
    const rowBytes = Buffer.byteLength(JSON.stringify(rows[0]));
    const maxBytes = 11 + rowBytes * 4 + 3 + 5;
    const chunks = planChunks(rows, { maxBytes });
    for (const chunk of chunks) expect(chunk.bytes).toBeLessThanOrEqual(maxBytes);
    expect(chunks.flatMap((chunk) => chunk.rows)).toEqual(rows);
    expect(chunks[0]?.rows).toHaveLength(4);
  });

  it("never goes past the api's limits, and refuses a row that cannot fit any body", () => {
    expect(planChunks(Array.from({ length: 20_001 }, (_, i) => row(i)), { maxRows: 50_000 }).map((c) => c.rows.length)).toEqual([20_000, 1]);
    const huge = row(1, { lastname: "x".repeat(100) });
    const failure = (() => {
      try {
        return planChunks([huge], { maxBytes: 64 });
      } catch (error) {
        return error;
      }
    })();
    expect((failure as DebtCollectionError).error).toMatchObject({ kind: "api", status: 413, errorCode: "payload_too_large" });
  });
});

describe("staged upload", () => {
  const rows = Array.from({ length: 25 }, (_, i) => row(i));

  it("uploads in order, fails mid-way, resumes from next_chunk_index, and polls to completion", async () => {
    let failing = true;
    const chunkPaths: string[] = [];
    const wire = recordingFetch((request) => {
      const path = new URL(request.url).pathname;
      if (request.method === "PUT" && path.includes("/chunks/")) chunkPaths.push(path.slice(path.lastIndexOf("/") + 1));
      if (failing && request.method === "PUT" && path.endsWith("/chunks/1")) throw new TypeError("fetch failed (simulated)");
      return undefined;
    });
    const api = createClient({ ...credentials, fetch: wire.fetch, retry: { maxRetries: 1, baseDelayMs: 1 } });
    const target = { campaign, reference: "export-0001" };

    const first = await uploadSnapshot(api, { ...target, rows, maxRows: 10, resumeAttempts: 0 }).catch((e: unknown) => e);
    expect((first as DebtCollectionError).error.kind).toBe("network");
    expect(chunkPaths).toEqual(["0", "1", "1"]);
    const halfway = await getSnapshot(api, target);
    expect(halfway).toMatchObject({ status: "uploading", delivery_mode: "staged", expected_row_count: 25, received_row_count: 10, next_chunk_index: 1 });

    failing = false;
    chunkPaths.length = 0;
    const acks: number[] = [];
    const finalized = await uploadSnapshot(api, { ...target, rows, maxRows: 10, onChunk: (ack) => acks.push(ack.chunk_index) });
    expect(chunkPaths).toEqual(["1", "2"]);
    expect(acks).toEqual([1, 2]);
    expect(finalized).toMatchObject({ status: "pending", core_applied: false, received_row_count: 25, received_chunk_count: 3, next_chunk_index: 3 });
    expect(wire.count("POST", /\/start$/)).toBe(1);

    // Calling again changes nothing: the snapshot is already finalized.
    const again = await uploadSnapshot(api, { ...target, rows, maxRows: 10 });
    expect(again.status).toMatch(/^(pending|processing|completed)$/);

    const worker = startWorkerProcess(database.url);
    const statuses: string[] = [];
    const statusPath = /\/snapshots\/export-0001$/;
    const readsBefore = wire.count("GET", statusPath);
    const done = await waitForSnapshot(api, { ...target, intervalMs: 100, timeoutMs: 90_000, onStatus: (s) => statuses.push(s.status) });
    await worker.stop();
    expect(done).toMatchObject({ status: "completed", core_applied: true, counts: { rows: 25, created: 25 } });
    expect(statuses.at(-1)).toBe("completed");
    // The read asked the api to answer once the snapshot settles (Prefer: wait), instead of polling every 100 ms
    // through the worker's start-up and the apply: one read.
    const reads = wire.sent.filter((request) => request.method === "GET" && statusPath.test(request.path)).slice(readsBefore);
    expect(reads).toHaveLength(1);
    expect(reads.every((request) => /^wait=\d+$/.test(request.prefer ?? ""))).toBe(true);

    const debts = unwrap(await api.GET("/external-api/v1/debts", { params: { query: { search: "ACC-", limit: 100 } } }));
    expect(debts.pagination.total).toBe(25);
  }, 120_000);

  it("resumes inside one call when a finalize is lost on the way", async () => {
    let drops = 1;
    const wire = recordingFetch((request) => {
      if (drops > 0 && request.method === "POST" && request.url.endsWith("/finalize")) {
        drops--;
        throw new TypeError("fetch failed (simulated)");
      }
      return undefined;
    });
    const api = createClient({ ...credentials, fetch: wire.fetch });
    const more = Array.from({ length: 30 }, (_, i) => row(100 + i));
    const ack = await sendSnapshot(api, { campaign, reference: "export-0002", rows: more, maxRows: 12 });
    expect(ack).toMatchObject({ status: "pending", delivery_mode: "staged", received_chunk_count: 3 });
    expect(wire.count("POST", /\/finalize$/)).toBe(2);
    expect(wire.count("PUT", /\/chunks\//)).toBe(3);
  });

  it("sends a snapshot that fits one body in one request; an identical retry is accepted again", async () => {
    const wire = recordingFetch();
    const api = createClient({ ...credentials, fetch: wire.fetch });
    const small = [row(1), row(2)];
    const ack = await sendSnapshot(api, { campaign, reference: "export-0003", rows: small });
    expect(ack).toMatchObject({ delivery_mode: "one_request", status: "pending", expected_row_count: 2, received_chunk_count: 1 });
    const retry = await sendSnapshot(api, { campaign, reference: "export-0003", rows: small });
    expect(retry.snapshot_reference).toBe("export-0003");
    const conflict = await sendSnapshot(api, { campaign, reference: "export-0003", rows: [row(1)] }).catch((e: unknown) => e);
    expect((conflict as DebtCollectionError).error).toMatchObject({ kind: "api", status: 409, errorCode: "snapshot_reference_conflict" });
  });

  it("reports an upload that expired before it could resume as failed with snapshot_expired, sending nothing more", async () => {
    const target = { campaign, reference: "export-0004" };
    const broken = recordingFetch((request) => {
      if (request.method === "PUT" && request.url.endsWith("/chunks/1")) throw new TypeError("fetch failed (simulated)");
      return undefined;
    });
    const first = await uploadSnapshot(createClient({ ...credentials, fetch: broken.fetch, retry: { maxRetries: 0 } }), {
      ...target,
      rows,
      maxRows: 10,
      resumeAttempts: 0,
    }).catch((e: unknown) => e);
    expect((first as DebtCollectionError).error.kind).toBe("network");
    // The worker's hourly expiry, eight days on (docs/decisions/0022).
    const eightDaysOn = new Date(Date.now() + 8 * 24 * 60 * 60 * 1000);
    expect((await expireStagedSnapshotsBatch(database.db, { idleDays: 7, limit: 100, now: eightDaysOn })).snapshots).toBe(1);

    const wire = recordingFetch();
    const ack = await uploadSnapshot(createClient({ ...credentials, fetch: wire.fetch }), { ...target, rows, maxRows: 10 });
    expect(ack).toMatchObject({
      status: "failed",
      received_row_count: 10,
      failure: { code: "snapshot_expired", message: "Staged snapshot not finalized within 7 days of its start or last chunk" },
    });
    expect(wire.count("PUT", /\/chunks\//)).toBe(0);
    expect(wire.count("POST", /\/finalize$/)).toBe(0);
  });

  it("waitForSnapshot reports an unknown reference", async () => {
    const api = createClient(credentials);
    const failure = await waitForSnapshot(api, { campaign, reference: "never-sent", intervalMs: 1 }).catch((e: unknown) => e);
    expect((failure as DebtCollectionError).error).toMatchObject({ kind: "api", status: 404, message: "Snapshot not found" });
  });
});
