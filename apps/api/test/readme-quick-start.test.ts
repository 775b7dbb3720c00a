/**
 * The README's "From zero to a token and a debt", run as written: its shell
 * blocks, in order, in one bash session, against the api and a worker
 * process on one database, as `npm start` runs them, the sandbox
 * walk-through included (a sandbox tenant's debt worked by its default
 * timeline over three weeks of its own clock). Two things are
 * rewritten: the api's address (the README's port 3000 becomes this test's)
 * and the `.data` folder (a temporary one, so a developer's own tenant file
 * is left alone). The CLI reaches this file's database through DATABASE_URL,
 * as it reaches the embedded one by default. A step whose command or answer
 * the README no longer gets right fails here.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repositoryRoot } from "@dc/db";
import { afterAll, describe, expect, it } from "vitest";
import { startTestApi } from "./support/harness.ts";
import { jsonValues, markdownSection, runShellBlocks, shellBlocks } from "./support/shell-blocks.ts";
import { startWorkerProcess } from "./support/webhooks-support.ts";

const t = await startTestApi();
const worker = startWorkerProcess(t.databaseUrl);
const root = repositoryRoot(import.meta.dirname);
const dataDirectory = await mkdtemp(join(tmpdir(), "dc-readme-"));
afterAll(() => rm(dataDirectory, { recursive: true, force: true }));

const readme = await readFile(join(root, "README.md"), "utf8");
/** The section's shell blocks, dedented out of their list items. */
const blocks = shellBlocks(markdownSection(readme, "## From zero to a token and a debt", "## Going further"));

const runBlocks = () =>
  runShellBlocks(blocks, {
    cwd: root,
    apiUrl: t.api.url,
    dataDirectory,
    environment: { DATABASE_URL: t.databaseUrl },
  });

describe("the README's quick path", () => {
  it("has the shell steps it describes", () => {
    expect(blocks.length).toBe(15);
    expect(blocks[0]).toContain("cli tenant create");
    expect(blocks[8]).toContain("Prefer: wait=30");
    expect(blocks[9]).toContain("cli tenant create --name \"Acme Sandbox\" --sandbox");
    expect(blocks.at(-2)).toContain("/timeline");
    expect(blocks.at(-1)).toContain("/validate");
  });

  it("takes a new integrator from a tenant to a token, a debt, a completed snapshot and a sandbox timeline run", async () => {
    await worker.ready();
    const run = await runBlocks();
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const [tenant, , token, , profile, debt, readBack, snapshot, status, sandbox, , advanced, messages, worked, review] =
      run.outputs;

    const created = JSON.parse(tenant ?? "") as Record<string, string>;
    expect(created["client_secret"]).toMatch(/^dcs_/);
    expect(JSON.parse(await readFile(join(dataDirectory, "tenant.json"), "utf8"))).toEqual(created);

    expect(JSON.parse(token ?? "")).toMatchObject({
      token_type: "Bearer",
      expires_in: 3600,
      scope: "company:read debts:read debts:write",
    });
    expect(JSON.parse(profile ?? "")).toMatchObject({
      error: false,
      message: "Company profile retrieved successfully",
      data: { id: created["company_id"], name: "Acme Collections" },
    });
    expect(JSON.parse(debt ?? "")).toMatchObject({
      error: false,
      message: "Debt created successfully",
      data: { internal_id: "INV-1001", status: "status.default.pending", timeline_id: created["timeline_id"] },
    });
    const [single, list] = jsonValues(readBack ?? "");
    expect(single).toMatchObject({ error: false, data: { internal_id: "INV-1001" } });
    expect(list).toMatchObject({ error: false, pagination: { total: 1, page: 1, limit: 5, pages: 1 } });
    expect(JSON.parse(snapshot ?? "")).toMatchObject({ data: { status: "pending", core_applied: false } });
    expect(JSON.parse(status ?? "")).toMatchObject({ data: { status: "completed", core_applied: true } });

    expect(JSON.parse(sandbox ?? "")).toMatchObject({ sandbox: true, company_id: expect.any(String) });
    expect(created["sandbox"]).toBe(false);
    expect(JSON.parse(advanced ?? "")).toMatchObject({ error: false, message: "Sandbox clock advanced successfully" });
    const sent = JSON.parse(messages ?? "") as { data: Array<Record<string, string>>; pagination: { total: number } };
    expect(sent.pagination.total).toBe(4);
    expect(sent.data.map((message) => [message["channel"], message["outcome"]])).toEqual([
      ["email", "delivered"],
      ["ai_call", "deal_not_found"],
      ["sms", "delivered"],
      ["email", "delivered"],
    ]);
    const [followups, timeline] = jsonValues(worked ?? "") as Array<{ data: unknown }>;
    expect((followups?.data as Array<{ status: string }>).map((followup) => followup.status).sort()).toEqual([
      "deal_not_found",
      "delivered",
      "delivered",
      "delivered",
    ]);
    expect(timeline?.data).toMatchObject({ state: "completed", next_action_at: null });

    // The review step validates the first plan proposal the debtor's page left, or finds none to validate.
    const [todos, validation] = jsonValues(review ?? "") as Array<Record<string, unknown>>;
    expect(todos).toMatchObject({ error: false, pagination: { page: 1, limit: 20 } });
    const proposals = (todos?.["data"] ?? []) as Array<{ id: string; type: string }>;
    expect(proposals.every((todo) => todo.type === "payment_plan")).toBe(true);
    expect(validation).toEqual(
      proposals.length === 0
        ? { error: true, message: "Todo not found", code: 404 }
        : expect.objectContaining({
            message: "Todo validated successfully",
            data: expect.objectContaining({ id: proposals[0]!.id, review_status: "validated", note: "Agreed" }),
          }),
    );
  });
});
