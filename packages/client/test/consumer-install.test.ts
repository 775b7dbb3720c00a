/**
 * The client installs and works outside the repository (issue 6): both
 * packages are packed as they would be published, installed with npm into a
 * fresh project under the system's temporary folder, type-checked from a
 * consumer's TypeScript against the installed declarations, and run from
 * plain JavaScript (no type stripping anywhere) against the real api and
 * worker. Nothing is skipped: a package that cannot be installed fails here.
 */
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { REPOSITORY, startSystem, startWorkerProcess } from "./support/processes.ts";
import { consumerTsconfig, createConsumerProject, environment, packClient, run } from "./support/consumer/project.ts";

const { baseUrl, tenant, database } = await startSystem("Consumer Install Ltd");
startWorkerProcess(database.url);

const scratch = await mkdtemp(join(tmpdir(), "dc-consumer-"));
afterAll(() => rm(scratch, { recursive: true, force: true }));

it("installs from packed tarballs with npm, type-checks, and runs the example flow with plain node", async () => {
  const tarballs = await packClient(join(scratch, "tarballs"));
  const project = await createConsumerProject(join(scratch, "project"), tarballs, ["flow.mjs", "typed.ts", "require.cjs"]);

  // pnpm pack applied publishConfig and replaced the workspace protocol.
  const domain = await project.manifest("@dc/domain");
  const client = await project.manifest("@dc/client");
  for (const manifest of [domain, client]) {
    // `default`, not `import`: a CommonJS project's require() resolves it too (Node 20.19 and 22.12 load ESM that way).
    expect(manifest.exports).toEqual({ ".": { types: "./dist/index.d.ts", default: "./dist/index.js" } });
    expect(manifest.types).toBe("./dist/index.d.ts");
    // The build needs no type stripping: it runs wherever Node loads ES modules with require too (20.19, 22.12),
    // so Node 20 integrators can install it with engine-strict. The sources' 22.18 applies inside the workspace only.
    expect(manifest.engines).toEqual({ node: "^20.19.0 || >=22.12.0" });
  }
  expect(client.dependencies?.["@dc/domain"]).toBe(domain.version);
  expect(Object.values(client.dependencies ?? {}).filter((range) => range.startsWith("workspace:"))).toEqual([]);
  // Only the build ships: no TypeScript sources for Node to refuse under node_modules.
  for (const name of ["domain", "client"]) {
    expect((await readdir(join(project.directory, "node_modules", "@dc", name))).sort()).toEqual(
      name === "client" ? ["README.md", "dist", "package.json"] : ["dist", "package.json"],
    );
  }

  await writeFile(join(project.directory, "tsconfig.json"), JSON.stringify(consumerTsconfig, null, 2));
  const tsc = await run(
    join(REPOSITORY, "node_modules", ".bin", "tsc"),
    ["-p", "."],
    project.directory,
    environment(true),
  );
  expect(tsc.stdout + tsc.stderr).toBe("");

  const { stdout, stderr } = await run(
    process.execPath,
    ["--no-experimental-strip-types", "flow.mjs"],
    project.directory,
    {
      PATH: process.env["PATH"] ?? "",
      BASE_URL: baseUrl,
      CLIENT_ID: tenant.client_id,
      CLIENT_SECRET: tenant.client_secret,
      CAMPAIGN: tenant.campaign_api_reference,
    },
  );
  expect(stderr).toBe("");
  expect(stdout.trimEnd().split("\n")).toEqual([
    "token: debts:read debts:write",
    "debt: 120.5 EUR",
    "refused locally: 422 invalid_snapshot_row rows.0.remaining_amount",
    "snapshot 1: completed, 5 rows in 3 chunks, 5 created",
    "snapshot 2: completed, 1 updated, 1 payments",
    "payments: 1, 25.00 EUR",
    "done",
  ]);

  const required = await run(process.execPath, ["--no-experimental-strip-types", "require.cjs"], project.directory, {
    PATH: process.env["PATH"] ?? "",
  });
  expect(required.stderr).toBe("");
  expect(required.stdout).toBe("require: function 20000 invalid_snapshot_row\n");
}, 240_000);
