/**
 * A snapshot is written in batches within one transaction
 * (docs/decisions/0691), so its reads and writes for several chunks share
 * one connection. Whichever statement of a two-chunk application fails (a
 * read of either chunk, a write of either batch or of the omitted debts,
 * the savepoint, the completion), the application raises that failure and
 * keeps nothing: every debt, payment, followup and event of the company is
 * as it was. Swept over every statement (`armFault` of @dc/testing) until
 * the application runs fewer statements than the fault waits for.
 */
import { createDatabase } from "@dc/db";
import { armFault, companyDigest, disarmFault, unexpectedError, useTestDatabase } from "@dc/testing";
import { fixedClock } from "@dc/runtime";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { applySnapshot } from "../src/snapshots/apply-snapshot.ts";
import {
  accountRow as row,
  insertCampaign,
  insertSnapshot,
  snapshotKey,
  snapshotState,
  testIds,
  testLinks,
} from "./snapshot-fixtures.ts";
import { insertEndpoint } from "./webhooks-fixtures.ts";

const { db, url } = await useTestDatabase();
const now = new Date("2030-06-15T12:00:00.000Z");
const APPLYING = "dc-test-chunk-failures";
/** Only this handle's statements are counted and failed. */
const applying = createDatabase({ connectionString: url, max: 2, applicationName: APPLYING });
afterAll(() => applying.destroy());

/** The application cannot run more statements than this; reaching it means the sweep is broken. */
const MAX_STATEMENTS = 200;

/** A seeded company and a stored two-chunk snapshot that changes balances, creates debts and settles one. */
const arrange = async () => {
  const campaign = await insertCampaign(db);
  await insertEndpoint(db, campaign.companyId, "https://hooks.example.com/all");
  const seed = await insertSnapshot(db, campaign, [
    [row("a", 10), row("b", 20)],
    [row("c", 30), row("d", 40)],
  ]);
  const seeded = await applySnapshot({ db, clock: fixedClock(now), ids: testIds, links: testLinks }, snapshotKey(seed));
  if (seeded.outcome !== "completed") throw new Error(`seed not applied: ${JSON.stringify(seeded)}`);
  // a and c fall (payments), b rises (an adjustment), e is new, d is omitted (settled).
  const snapshotId = await insertSnapshot(db, campaign, [
    [row("a", 4), row("b", 25)],
    [row("c", 5), row("e", 9)],
  ]);
  return { companyId: campaign.companyId, snapshotId };
};

describe("a two-chunk snapshot application with one statement failing", () => {
  it("raises that failure and keeps nothing, whichever statement it is", async () => {
    const failedStatements: Array<string> = [];
    let ranUntouched = false;
    for (let failAt = 1; failAt <= MAX_STATEMENTS; failAt++) {
      const { companyId, snapshotId } = await arrange();
      // The snapshot under test is compared on its own: its `processing` mark commits before the application.
      const digest = () => companyDigest(db, companyId, { snapshots: sql`r.id = ${snapshotId}` });
      const before = await digest();
      armFault(failAt, unexpectedError, new Set([APPLYING]));
      const outcome = await applySnapshot(
        { db: applying, clock: fixedClock(now), ids: testIds, links: testLinks },
        snapshotKey(snapshotId),
      ).then(
        (done) => ({ done }),
        (error: unknown) => ({ error }),
      );
      const fault = await disarmFault();
      if (fault.failed === undefined) {
        // Fewer statements than the fault waited for: the untouched run completes.
        expect(outcome).toMatchObject({ done: { outcome: "completed" } });
        ranUntouched = true;
        break;
      }
      failedStatements.push(fault.failed.trim().slice(0, 40));
      expect(outcome, `statement ${failAt}: ${fault.failed.slice(0, 80)}`).toEqual({
        error: expect.objectContaining({ message: expect.stringContaining("injected fault") }),
      });
      if (failAt > 1) {
        // The `processing` mark (the first statement) commits on its own; everything after it is undone.
        expect((await snapshotState(db, snapshotId)).status).toBe("processing");
      }
      expect(await digest()).toEqual(before);
    }
    expect(ranUntouched).toBe(true);
    // Both chunks' reads, and the debts' update and the payments of each of the three batches (two chunks, then
    // the omitted debt), were among the statements made to fail.
    const count = (start: string) => failedStatements.filter((text) => text.startsWith(start)).length;
    expect([count("select chunk_index, body"), count("update debts d set"), count("with inst as")]).toEqual([2, 3, 3]);
  });
});
