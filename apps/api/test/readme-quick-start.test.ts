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
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { repositoryRoot } from "@dc/db";
import { afterAll, describe, expect, it } from "vitest";
import { startTestApi } from "./support/harness.ts";
import { startWorkerProcess } from "./support/webhooks-support.ts";

const t = await startTestApi();
const worker = startWorkerProcess(t.databaseUrl);
const root = repositoryRoot(import.meta.dirname);
const dataDirectory = await mkdtemp(join(tmpdir(), "dc-readme-"));
afterAll(() => rm(dataDirectory, { recursive: true, force: true }));

const readme = await readFile(join(root, "README.md"), "utf8");
const section = readme.slice(readme.indexOf("## From zero to a token and a debt"), readme.indexOf("## Going further"));
/** The section's shell blocks, dedented out of their list items. */
const blocks = [...section.matchAll(/^( *)```sh\n([\s\S]*?)^\1```$/gm)].map(([, indent = "", body = ""]) =>
  body
    .split("\n")
    .map((line) => line.slice(indent.length))
    .join("\n"),
);

const asRunHere = (block: string) =>
  block
    .replaceAll("http://localhost:3000", t.api.url)
    .replace(/(^|[\s'"(])(?:\.\/)?\.data(?=[/\s]|$)/gm, `$1${dataDirectory}`);

/** This process's environment without what pnpm and vitest set in it: a terminal's has none of it. */
const terminalEnvironment = () =>
  Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(npm_|PNPM_|VITEST|NODE_ENV$|TEST$)/i.test(key)));

/** Runs every block in one bash session; resolves with each block's output. */
const runBlocks = () =>
  new Promise<{ code: number; outputs: string[]; stderr: string }>((resolve) => {
    const script = blocks.map((block, index) => `printf '\\n::block ${index}::\\n'\n${asRunHere(block)}`).join("\n");
    execFile(
      "bash",
      ["-e", "-o", "pipefail", "-c", script],
      {
        cwd: root,
        env: {
          ...terminalEnvironment(),
          PATH: `${dirname(process.execPath)}:${process.env["PATH"] ?? ""}`,
          DATABASE_URL: t.databaseUrl,
        },
        encoding: "utf8",
        timeout: 120_000,
      },
      (error, stdout, stderr) =>
        resolve({
          code: error === null ? 0 : Number(error.code),
          // A block's output may not end its last line (curl's answers do not): each marker starts on a new one.
          outputs: stdout
            .split(/\n::block \d+::\n/)
            .slice(1)
            .map((output) => output.trim()),
          // npm's warnings about this machine's own npm settings, printed by `npx`, are not the README's.
          stderr: stderr
            .split("\n")
            .filter((line) => !line.startsWith("npm warn "))
            .join("\n"),
        }),
    );
  });

/** The JSON values of `text`, written one after another with nothing between them (two curl answers in a row). */
const jsonValues = (text: string): unknown[] => {
  for (let end = text.indexOf("}{") + 1; end > 0; end = text.indexOf("}{", end) + 1) {
    try {
      return [JSON.parse(text.slice(0, end)), ...jsonValues(text.slice(end))];
    } catch {
      // That "}{" was inside a string: try the next.
    }
  }
  return [JSON.parse(text)];
};

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
