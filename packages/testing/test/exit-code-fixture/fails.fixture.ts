/** A run whose one test fails: vitest must exit 1. */
import { expect, test } from "vitest";
import { recordCluster } from "./record-cluster.ts";

test("fails", async () => {
  await recordCluster();
  expect("this fixture").toBe("failing on purpose");
});
