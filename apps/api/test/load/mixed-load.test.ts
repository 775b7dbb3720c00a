/**
 * The mixed-load benchmark's machinery, bounded for CI: two api processes and
 * a worker on this file's database, 10 s of the benchmark's request mix at a
 * modest fixed rate, then the no-loss check. Latency is not asserted here
 * (the benchmark measures it on a quiet machine); correctness under
 * concurrency is: no error but 429, envelopes only, every accepted write
 * stored exactly once and every accepted snapshot applied.
 */
import { useTestDatabase } from "@dc/testing";
import { afterAll, describe, expect, it } from "vitest";
import { runStep } from "../../bench/mixed/drive.ts";
import { startMixedSystem } from "../../bench/mixed/system.ts";
import { verifyAccepted, verifyRun } from "../../bench/mixed/verify.ts";

const database = await useTestDatabase();
const system = await startMixedSystem({
  databaseUrl: database.url,
  db: database.db,
  shape: { companies: 2, creditorsPerCompany: 2, debtsPerCreditor: 250, bigCreditorDebts: 0 },
  rateLimitScale: 1_000,
  debtIdsPerTenant: 200,
});
afterAll(() => system.stop());

describe("mixed load on two api processes and a worker", () => {
  it(
    "answers every request with a 2xx (or an intended 429) envelope and loses no accepted write",
    { timeout: 120_000 },
    async () => {
      const runTag = `ci${Date.now().toString(36)}`;
      const step = await runStep(
        system.apis.map((api) => api.url),
        system.tenants,
        { connections: 4, overallRate: 60, durationSeconds: 10, tag: `${runTag}-s0` },
      );

      expect(step.unexpected).toEqual([]);
      expect(step.failedResponses).toBe(0);
      expect(step.transportErrors).toBe(0);
      expect(step.nonEnvelope).toBe(0);
      expect(step.ok + step.rateLimited).toBe(step.requests);
      // Both processes took writes of every kind, or the check below would prove little.
      expect(step.accepted.debts.length).toBeGreaterThan(0);
      expect(step.accepted.followups.length).toBeGreaterThan(0);
      expect(step.accepted.snapshots.length).toBeGreaterThan(0);
      expect(new Set(step.accepted.debts.map((debt) => debt.internalId.split("-")[3])).size).toBe(2);

      const verification = await verifyRun(database.db, system.ids, runTag, [step], 60_000);
      expect(verification.problems).toEqual([]);
      expect(verification.debts).toMatchObject({
        found: step.accepted.debts.length,
        missing: 0,
        duplicated: 0,
        mismatched: 0,
      });
      expect(verification.followups).toMatchObject({
        found: step.accepted.followups.length,
        missing: 0,
        duplicated: 0,
        mismatched: 0,
      });
      expect(verification.snapshots).toMatchObject({
        found: step.accepted.snapshots.length,
        missing: 0,
        duplicated: 0,
      });
      expect(verification.snapshots.byStatus).toEqual({ completed: step.accepted.snapshots.length });
      expect(verification.ok).toBe(true);

      // The check itself can fail: an acknowledged write that is not stored, and one acknowledged twice.
      const ghost = { id: system.ids.encode("followup", 2_000_000_000), callId: `LOAD-${runTag}-s0-0-ghost` };
      const tampered = await verifyAccepted(
        database.db,
        system.ids,
        runTag,
        {
          ...step.accepted,
          followups: [...step.accepted.followups, ghost],
          debts: [...step.accepted.debts, step.accepted.debts[0]!],
        },
        step.connections,
      );
      expect(tampered.followups.missing).toBe(1);
      expect(tampered.debts.duplicated).toBe(1);
      expect(tampered.ok).toBe(false);
    },
  );
});
