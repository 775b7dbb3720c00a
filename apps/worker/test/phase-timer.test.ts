/** The phase timer of a snapshot run's log line (src/snapshots/phase-timer.ts). */
import { describe, expect, it } from "vitest";
import { phaseTimer } from "../src/snapshots/phase-timer.ts";

const busyFor = (ms: number): void => {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // The timer reads performance.now(); spinning is the one way to spend a known time without a clock service.
  }
};

describe("phaseTimer", () => {
  it("starts every phase at 0 and returns what each step returns", async () => {
    const { timed, rounded } = phaseTimer(["read", "plan"]);
    expect(rounded()).toEqual({ read: 0, plan: 0 });
    expect(await timed("read", () => 42)).toBe(42);
    expect(await timed("plan", async () => "planned")).toBe("planned");
  });

  it("adds up a phase timed twice and counts a nested phase in both", async () => {
    const { timed, rounded } = phaseTimer(["outer", "inner", "other"]);
    await timed("outer", () => busyFor(5));
    await timed("outer", () => timed("inner", () => busyFor(5)));
    const ms = rounded();
    expect(ms.inner).toBeGreaterThanOrEqual(5);
    expect(ms.outer).toBeGreaterThanOrEqual(10);
    expect(ms.outer).toBeGreaterThanOrEqual(ms.inner + 5 - 1);
    expect(ms.other).toBe(0);
  });

  it("counts a step that throws, and rethrows its error", async () => {
    const { timed, rounded } = phaseTimer(["write"]);
    const failure = new Error("statement failed");
    await expect(
      timed("write", () => {
        busyFor(5);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(rounded().write).toBeGreaterThanOrEqual(5);
  });
});
