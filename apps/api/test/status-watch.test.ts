/**
 * The snapshot status watch against a database that accepts connections and
 * never answers (a black-holed pooler): waits fall back to re-reading, one
 * connection attempt runs at a time, and a stop is not held up by it.
 */
import { createServer, type Socket } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "@dc/runtime";
import { FALLBACK_MS, watchSnapshotStatus } from "../src/routes/snapshots/status-watch.ts";

const accepted: Socket[] = [];
const silentDatabase = createServer((socket) => void accepted.push(socket));
await new Promise<void>((resolve) => silentDatabase.listen(0, "127.0.0.1", resolve));
const address = silentDatabase.address();
const port = typeof address === "object" && address !== null ? address.port : 0;
afterAll(async () => {
  for (const socket of accepted) socket.destroy();
  await new Promise((resolve) => silentDatabase.close(resolve));
});

describe("the snapshot status watch, with a database that never answers", () => {
  it("lets a wait re-read after the fallback delay, opens one connection at a time, and stops at once", async () => {
    const watch = watchSnapshotStatus(`postgres://app@127.0.0.1:${port}/collections`, createLogger("api", "silent"));
    const started = performance.now();
    const first = watch.subscribe(1, 30_000);
    const second = watch.subscribe(2, 30_000);
    await Promise.all([first.next, second.next]);
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(FALLBACK_MS - 5);
    expect(waited).toBeLessThan(5_000);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    // Still connecting (it never gets an answer): a later wait starts no second attempt.
    watch.subscribe(3, 30_000).cancel();
    expect(accepted).toHaveLength(1);

    const stopping = performance.now();
    await watch.close();
    expect(performance.now() - stopping).toBeLessThan(2_000);
    expect(watch.subscribe(4, 30_000).closed).toBe(true);
  });
});
