/**
 * The getting-started page's shell and curl examples (`GET /docs/guide`),
 * run as a reader pastes them: in order, in one bash session, against the
 * api and a worker process. The page is rendered for this api's address, so
 * its `BASE_URL` is right as served; what a reader fills in by hand is
 * filled in with a real tenant's values (the client's id and secret, the
 * campaign, and the token the page tells them to copy from the token
 * answer). A command or an answer the page no longer gets right fails here.
 */
import { describe, expect, it } from "vitest";
import { guidePage } from "../src/docs/guide-page.ts";
import { guideBlocks } from "./support/guide-blocks.ts";
import { startTestApi } from "./support/harness.ts";
import { runShellBlocks } from "./support/shell-blocks.ts";
import { startWorkerProcess } from "./support/webhooks-support.ts";

const t = await startTestApi();
const worker = startWorkerProcess(t.databaseUrl);
const tenant = await t.tenant("Guide Reader Ltd");

describe("the getting-started page's commands", () => {
  const blocks = guideBlocks(guidePage(t.api.url), /^(shell|curl)/);

  it("are the steps the page describes", () => {
    expect(blocks.map((block) => block.split("\n")[0])).toEqual([
      `export BASE_URL=${t.api.url}`,
      'curl -s -X POST "$BASE_URL/oauth/token" \\',
      "export TOKEN=dcat_...",
      'curl -s -X POST "$BASE_URL/external-api/v1/debts" \\',
      'curl -s -X PUT "$BASE_URL/external-api/v1/campaigns/$CAMPAIGN/snapshots/export-2026-11-21-0001" \\',
      'curl -s "$BASE_URL/external-api/v1/campaigns/$CAMPAIGN/snapshots/export-2026-11-21-0001" \\',
    ]);
  });

  it("take a reader with a client's credentials to a token, a debt and a completed snapshot", async () => {
    await worker.ready();
    const token = await t.token(tenant, "debts:read debts:write");
    // What the reader fills in: the placeholders of their credentials and of the token they copy.
    const filledIn = blocks.map((block) =>
      block
        .replace("CLIENT_ID=dcc_...", `CLIENT_ID=${tenant.client_id}`)
        .replace("CLIENT_SECRET=dcs_...", `CLIENT_SECRET=${tenant.client_secret}`)
        .replace(/CAMPAIGN=\S+/, `CAMPAIGN=${tenant.campaign_api_reference}`)
        .replace("TOKEN=dcat_...", `TOKEN=${token}`),
    );
    const run = await runShellBlocks(filledIn, { cwd: import.meta.dirname, apiUrl: t.api.url });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    const [, answer, , debt, snapshot, status] = run.outputs.map((output) =>
      output === "" ? undefined : JSON.parse(output),
    );
    expect(answer).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "debts:read debts:write" });
    expect(debt).toMatchObject({
      error: false,
      message: "Debt created successfully",
      data: { internal_id: "INV-1001" },
    });
    expect(snapshot).toMatchObject({ data: { status: "pending", delivery_mode: "one_request" } });
    expect(status).toMatchObject({ data: { status: "completed", core_applied: true } });
  });
});
