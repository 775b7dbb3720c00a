/** The stop-signal rule of the api and the worker: a first signal stops, a repeat within the window is the same one. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { freePort, startEmbeddedPostgres } from "../src/embedded-postgres.ts";
import { handleStopSignals, STOP_SIGNAL_REPEAT_MS } from "@dc/runtime";

const signals = ["SIGTERM", "SIGINT"] as const;
let saved: Map<string, Array<(...args: Array<unknown>) => void>>;

beforeEach(() => {
  saved = new Map(
    signals.map((signal) => [signal, process.listeners(signal) as Array<(...args: Array<unknown>) => void>]),
  );
});

afterEach(() => {
  for (const signal of signals) {
    process.removeAllListeners(signal);
    for (const listener of saved.get(signal) ?? []) process.on(signal, listener);
  }
});

describe("handleStopSignals", () => {
  it("stops on the first signal, ignores one repeated within the window, and exits on one after it", () => {
    const seen: Array<string> = [];
    let clock = 1_000;
    const onSignal = handleStopSignals(
      { stop: (signal) => seen.push(`stop ${signal}`), exitNow: (signal) => seen.push(`exit ${signal}`) },
      () => clock,
    );
    onSignal("SIGTERM");
    clock += STOP_SIGNAL_REPEAT_MS - 1;
    onSignal("SIGTERM");
    expect(seen).toEqual(["stop SIGTERM"]);
    clock += 1;
    onSignal("SIGINT");
    expect(seen).toEqual(["stop SIGTERM", "exit SIGINT"]);
  });

  it("replaces earlier listeners of both signals (a library's exit hook would end the process first)", () => {
    const earlier = () => {};
    process.on("SIGTERM", earlier);
    const onSignal = handleStopSignals({ stop: () => {}, exitNow: () => {} });
    for (const signal of signals) expect(process.listeners(signal)).toEqual([onSignal]);
  });

  it("keeps both signals when an embedded cluster is started afterwards (the worker without DATABASE_URL)", async () => {
    // embedded-postgres, loaded on demand, hooks both signals to stop its clusters and exit at once:
    // beside the worker's own stop it cut the jobs in progress short and exited 1.
    const onSignal = handleStopSignals({ stop: () => {}, exitNow: () => {} });
    const dataDir = mkdtempSync(join(tmpdir(), "dc-stop-signals-"));
    const cluster = await startEmbeddedPostgres({ dataDir, port: await freePort(), ephemeral: true });
    try {
      for (const signal of signals) expect(process.listeners(signal)).toEqual([onSignal]);
    } finally {
      await cluster.stop();
    }
  });
});
