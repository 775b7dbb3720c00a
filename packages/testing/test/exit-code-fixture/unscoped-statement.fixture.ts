/**
 * A run whose tests pass but whose global teardown fails: the recorded
 * statement reads a tenant table without naming the company, so the
 * tenant-statement check throws (packages/testing/tenant-statements.ts) and vitest
 * must exit 1.
 */
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { inject, test } from "vitest";
import "../../provided-context.ts";
import { recordCluster } from "./record-cluster.ts";

test("records a statement the check refuses", async () => {
  await recordCluster();
  appendFileSync(
    join(inject("tenantStatements"), "fixture.jsonl"),
    `${JSON.stringify("select count(*) from debts")}\n`,
  );
});
