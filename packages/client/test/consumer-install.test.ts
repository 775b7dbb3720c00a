/**
 * The client installs and works outside the repository: both packages are
 * packed as they would be published; the client alone is installed with npm
 * into a fresh project under the system's temporary folder, where its main
 * entry must stay light (at most 3 packages and 2 MB, no source maps without
 * their sources) and work without `@dc/domain`; then the domain is added for
 * `@dc/client/snapshots`. Both are type-checked from a consumer's TypeScript
 * against the installed declarations, and run from
 * plain JavaScript (no type stripping anywhere) against the real api and
 * worker, on the repository's Node 24 and on the machine's own Node (20 on
 * this project's machines, the oldest line the published engines accept).
 * Nothing is skipped: a package that cannot be installed fails here.
 */
import { existsSync, realpathSync } from "node:fs";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { REPOSITORY, startSystem, startWorkerProcess } from "./support/processes.ts";
import {
  consumerSnapshotsTsconfig,
  consumerTsconfig,
  createConsumerProject,
  environment,
  packClient,
  run,
} from "./support/consumer/project.ts";

const { baseUrl, tenant, database } = await startSystem("Consumer Install Ltd");
startWorkerProcess(database.url);

const scratch = await mkdtemp(join(tmpdir(), "dc-consumer-"));

/** A `node` binary's version. */
const nodeVersion = async (node: string) => {
  const text = (await run(node, ["-p", "process.versions.node"], scratch)).stdout.trim();
  const [major = 0, minor = 0] = text.split(".").map(Number);
  return { text, major, minor };
};

/**
 * The machine's own Node: the first `node` on PATH outside the repository
 * (whose node_modules/.bin holds Node 24). The README's quick start asks for
 * Node 20 or later on the machine, so there is one.
 */
const machineNode = async () => {
  for (const directory of (process.env["PATH"] ?? "").split(delimiter)) {
    const candidate = join(directory, "node");
    if (directory === "" || candidate.startsWith(REPOSITORY) || !existsSync(candidate)) continue;
    return { path: realpathSync(candidate), version: await nodeVersion(candidate) };
  }
  throw new Error("no node on PATH outside the repository");
};
const machine = await machineNode();
afterAll(() => rm(scratch, { recursive: true, force: true }));

/** The main entry's budget: what `npm install` of the client alone may bring. */
const MAIN_ENTRY_MAX_PACKAGES = 3;
const MAIN_ENTRY_MAX_BYTES = 2 * 1024 * 1024;

it("installs from packed tarballs with npm, type-checks, and runs the flow on plain Node 24 and the machine's", async () => {
  const tarballs = await packClient(join(scratch, "tarballs"));
  const project = await createConsumerProject(join(scratch, "project"), tarballs, [
    "flow.mjs",
    "main-only.mjs",
    "typed.ts",
    "typed-snapshots.ts",
    "require.cjs",
  ]);
  const tsc = async (config: object) => {
    await writeFile(join(project.directory, "tsconfig.json"), JSON.stringify(config, null, 2));
    const { stdout, stderr } = await run(join(REPOSITORY, "node_modules", ".bin", "tsc"), ["-p", "."], project.directory, environment(true));
    return stdout + stderr;
  };

  // The client alone: its main entry with what it needs, and nothing for the snapshots' domain rules.
  const light = await project.installed();
  expect(light.map((installed) => installed.name)).toEqual(["@dc/client", "openapi-fetch", "openapi-typescript-helpers"]);
  expect(light.length).toBeLessThanOrEqual(MAIN_ENTRY_MAX_PACKAGES);
  const bytes = light.reduce((sum, installed) => sum + installed.bytes, 0);
  expect({ bytes, within: bytes <= MAIN_ENTRY_MAX_BYTES }).toEqual({ bytes, within: true });
  // A source map is shipped only with the sources it points at: ours ship neither.
  for (const name of ["@dc/client"]) {
    expect(light.find((installed) => installed.name === name)?.files.filter((file) => file.endsWith(".map"))).toEqual([]);
  }
  expect(await tsc(consumerTsconfig)).toBe("");
  const mainOnly = await run(process.execPath, ["--no-experimental-strip-types", "main-only.mjs"], project.directory, {
    PATH: process.env["PATH"] ?? "",
  });
  expect({ stdout: mainOnly.stdout, stderr: mainOnly.stderr }).toEqual({
    stdout: "main: function function network\ndescribed: network error: fetch failed: connect ECONNREFUSED 127.0.0.1:PORT\nsnapshots: ERR_MODULE_NOT_FOUND true\n",
    stderr: "",
  });

  await project.addDomain();
  const full = await project.installed();
  expect(full.find((installed) => installed.name === "@dc/domain")?.files.filter((file) => file.endsWith(".map"))).toEqual([]);

  // pnpm pack applied publishConfig and replaced the workspace protocol.
  const jsonText = await project.manifest("@dc/json-text");
  const domain = await project.manifest("@dc/domain");
  const client = await project.manifest("@dc/client");
  // `default`, not `import`: a CommonJS project's require() resolves it too (Node 20.19 and 22.12 load ESM that way).
  for (const manifest of [jsonText, domain]) {
    expect(manifest.exports).toEqual({ ".": { types: "./dist/index.d.ts", default: "./dist/index.js" } });
  }
  expect(client.exports).toEqual({
    ".": { types: "./dist/index.d.ts", default: "./dist/index.js" },
    "./snapshots": { types: "./dist/snapshots/index.d.ts", default: "./dist/snapshots/index.js" },
  });
  for (const manifest of [jsonText, domain, client]) {
    expect(manifest.types).toBe("./dist/index.d.ts");
    // The build needs no type stripping: it runs wherever Node loads ES modules with require too (20.19, 22.12),
    // so Node 20 integrators can install it with engine-strict. The sources' 22.18 applies inside the workspace only.
    expect(manifest.engines).toEqual({ node: "^20.19.0 || >=22.12.0" });
  }
  // The machine's Node is one the published engines accept, or the runs below would not speak for them.
  const { text, major, minor } = machine.version;
  const accepted = (major === 20 && minor >= 19) || major > 22 || (major === 22 && minor >= 12);
  expect({ node: text, accepted }).toEqual({ node: text, accepted: true });
  // The domain and its JSON rules are optional peers at the same version: installed only by those who send snapshots.
  expect(client.dependencies).toEqual({ "openapi-fetch": "0.17.0" });
  expect(client.peerDependencies).toEqual({ "@dc/domain": domain.version, "@dc/json-text": jsonText.version });
  expect(client.peerDependenciesMeta).toEqual({ "@dc/domain": { optional: true }, "@dc/json-text": { optional: true } });
  expect(domain.dependencies?.["@dc/json-text"]).toBe(jsonText.version);
  // Only the build ships: no TypeScript sources for Node to refuse under node_modules.
  for (const name of ["json-text", "domain", "client"]) {
    expect((await readdir(join(project.directory, "node_modules", "@dc", name))).sort()).toEqual(
      name === "client" ? ["README.md", "dist", "package.json"] : ["dist", "package.json"],
    );
  }

  expect(await tsc(consumerSnapshotsTsconfig)).toBe("");

  // Node 24 (the repository's), then the machine's own Node (Node 20 on this project's machines): the oldest an
  // integrator may run the published build with.
  for (const node of [process.execPath, ...(machine.path === process.execPath ? [] : [machine.path])]) {
    const version = await nodeVersion(node);
    // Type stripping exists from 22.6; the build must not need it.
    const stripsTypes = version.major > 22 || (version.major === 22 && version.minor >= 6);
    const plain = stripsTypes ? ["--no-experimental-strip-types"] : [];
    const { stdout, stderr } = await run(node, [...plain, "flow.mjs"], project.directory, {
      PATH: process.env["PATH"] ?? "",
      BASE_URL: baseUrl,
      CLIENT_ID: tenant.client_id,
      CLIENT_SECRET: tenant.client_secret,
      CAMPAIGN: tenant.campaign_api_reference,
    });
    expect({ node: version.text, stderr }).toEqual({ node: version.text, stderr: "" });
    expect(stdout.trimEnd().split("\n")).toEqual([
      "token: debts:read debts:write",
      "debt: 120.5 EUR",
      "refused locally: 422 invalid_snapshot_row rows.0.remaining_amount",
      "snapshot 1: completed, 5 rows in 3 chunks, 5 created",
      "snapshot 2: completed, 1 updated, 1 payments",
      "payments: 1, 25.00 EUR",
      "done",
    ]);

    const required = await run(node, [...plain, "require.cjs"], project.directory, { PATH: process.env["PATH"] ?? "" });
    expect({ node: version.text, stderr: required.stderr }).toEqual({ node: version.text, stderr: "" });
    expect(required.stdout).toBe("require: function 20000 invalid_snapshot_row\n");
  }
}, 600_000);
