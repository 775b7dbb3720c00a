/**
 * CI runs the published example (`node examples/integration.ts`) as an
 * integrator would: against the real api and worker processes, with a
 * tenant from the admin CLI, and checks its exit code and printed summary.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { REPOSITORY, startSystem, startWorkerProcess } from "./support/processes.ts";

const { baseUrl, tenant, database } = await startSystem("Example Integration Inc");
startWorkerProcess(database.url);

it("runs examples/integration.ts to completion", async () => {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [join(REPOSITORY, "examples", "integration.ts")], {
    cwd: REPOSITORY,
    env: {
      PATH: process.env["PATH"] ?? "",
      BASE_URL: baseUrl,
      CLIENT_ID: tenant.client_id,
      CLIENT_SECRET: tenant.client_secret,
      CAMPAIGN: tenant.campaign_api_reference,
    },
    timeout: 120_000,
  }).catch((error: { stdout?: string; stderr?: string; code?: number }) => {
    throw new Error(`the example exited with ${error.code}\n${error.stdout}\n${error.stderr}`);
  });
  expect(stderr).toBe("");
  expect(stdout.trimEnd().split("\n")).toEqual([
    expect.stringMatching(/^token: scope "debts:read debts:write", valid for 3[56]\d\d s$/),
    "created debts: 3",
    "snapshot monday: completed, 2500 rows in 3 chunks, 2500 debts created",
    "snapshot tuesday: completed, 2 updated, 1 settled, 3 payments",
    "payments read: 3, 150.00 EUR",
    "done",
  ]);
}, 150_000);
