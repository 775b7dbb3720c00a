/**
 * The README's "From zero to a token and a debt", run as written: its shell
 * blocks, in order, in one bash session, against the api and a worker
 * process on one database, as `npm start` runs them. Two things are
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
    expect(blocks.length).toBe(9);
    expect(blocks[0]).toContain("cli tenant create");
    expect(blocks.at(-1)).toContain("Prefer: wait=30");
  });

  it("takes a new integrator from a tenant to a token, a debt and a completed snapshot", async () => {
    await worker.ready();
    const run = await runBlocks();
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const [tenant, , token, , profile, debt, readBack, snapshot, status] = run.outputs;

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
  });
});
