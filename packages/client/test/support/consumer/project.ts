/**
 * A consumer project outside the repository, built the way an integrator
 * would get the client: `pnpm pack` of `@dc/domain` and `@dc/client` (which
 * runs their `prepack` build, rewrites `workspace:*` to the version and
 * applies `publishConfig`), then `npm install` of the client's tarball, and
 * later of the domain's, into a fresh directory under the system's temporary
 * folder, where nothing from the workspace's `node_modules` is reachable.
 *
 * The install is offline. Each third-party package the three need (effect,
 * openapi-fetch and what they depend on) is packed from the copy the
 * workspace installed from its lockfile, and npm is pointed at those
 * tarballs. This machine's TLS to the npm registry fails intermittently
 * (SELF_SIGNED_CERT_IN_CHAIN for minutes at a time), and npm's retries then
 * outlast the test's timeout. What is tested is our packages' install, not
 * the registry.
 */
import { execFile } from "node:child_process";
import { access, copyFile, mkdir, readdir, readFile, realpath, stat, writeFile } from "node:fs/promises";
import { delimiter, dirname, join } from "node:path";
import { promisify } from "node:util";
import { REPOSITORY } from "../processes.ts";

/** The installed packages' manifests and where the project is. */
export interface ConsumerProject {
  readonly directory: string;
  readonly manifest: (name: PackedName) => Promise<PackedManifest>;
  /** The packages now under the project's `node_modules`. */
  readonly installed: () => Promise<Array<InstalledPackage>>;
  /** Installs the `@dc/domain` and `@dc/json-text` tarballs too (what `@dc/client/snapshots` needs). */
  readonly addDomain: () => Promise<void>;
}

/** The fields of a packed package.json the test checks. */
export interface PackedManifest {
  readonly name: string;
  readonly version: string;
  readonly exports: unknown;
  readonly types?: string;
  readonly engines?: Record<string, string>;
  readonly dependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly peerDependenciesMeta?: Record<string, { readonly optional?: boolean }>;
}

/**
 * Ours, with the repository's Node 24, tsc and pnpm first on PATH (npm and
 * the packages' prepack scripts run on them). `outside` also drops the
 * lower-case `npm_*` and `pnpm_*` variables a package manager sets for the
 * scripts it runs (this test's own `pnpm exec` or `npx`): npm in the
 * consumer's project reads its configuration (npmrc files, `NPM_CONFIG_*`)
 * as in a fresh shell, not the workspace's.
 */
export const environment = (outside = false): Record<string, string> => {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !(outside && /^(npm|pnpm)_/.test(key))) env[key] = value;
  }
  return { ...env, PATH: `${join(REPOSITORY, "node_modules", ".bin")}${delimiter}${process.env["PATH"] ?? ""}` };
};

/** Runs a command to completion; a failure carries the command's whole output. */
export const run = async (command: string, args: ReadonlyArray<string>, cwd: string, env = environment()) => {
  try {
    return await promisify(execFile)(command, [...args], { cwd, env, timeout: 180_000, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const { stdout, stderr, code } = error as { stdout?: string; stderr?: string; code?: number | string };
    throw new Error(`${command} ${args.join(" ")} failed (${code}) in ${cwd}\n${stdout ?? ""}\n${stderr ?? ""}`);
  }
};

/** The workspace packages an integrator installs: the client and what it depends on at run time. */
export type PackedName = "@dc/json-text" | "@dc/domain" | "@dc/client";

/** The tarball of each packed package. */
export interface Tarballs {
  readonly jsonText: string;
  readonly domain: string;
  readonly client: string;
}

/** `pnpm pack` of the JSON rules, the domain and the client into `destination`; resolves to the three tarballs. */
export const packClient = async (destination: string): Promise<Tarballs> => {
  await mkdir(destination, { recursive: true });
  const pnpm = join(REPOSITORY, "node_modules", ".bin", "pnpm");
  await run(
    pnpm,
    ["--filter", "@dc/json-text", "--filter", "@dc/domain", "--filter", "@dc/client", "pack", "--pack-destination", destination],
    REPOSITORY,
  );
  const files = await readdir(destination);
  const tarball = (prefix: string) => {
    const found = files.filter((file) => file.startsWith(prefix) && file.endsWith(".tgz"));
    if (found.length !== 1)
      throw new Error(`expected one ${prefix}*.tgz in ${destination}, found ${JSON.stringify(files)}`);
    return join(destination, found[0] as string);
  };
  return { jsonText: tarball("dc-json-text-"), domain: tarball("dc-domain-"), client: tarball("dc-client-") };
};

/** The directory Node would load `name` from when required by the package in `from`. */
const installedPackage = async (from: string, name: string): Promise<string> => {
  for (let directory = from; ; directory = dirname(directory)) {
    const candidate = join(directory, "node_modules", name);
    try {
      await access(join(candidate, "package.json"));
      return await realpath(candidate);
    } catch {
      if (dirname(directory) === directory) throw new Error(`${name} is not installed for ${from}`);
    }
  }
};

/**
 * Packs every third-party package that the packed `@dc/*` packages depend
 * on, transitively, from the workspace's installed copies into
 * `destination`; resolves to a `file:` spec per package name.
 */
export const packThirdPartyDependencies = async (destination: string): Promise<Record<string, string>> => {
  await mkdir(destination, { recursive: true });
  const specs: Record<string, string> = {};
  const visit = async (packageDirectory: string): Promise<void> => {
    const manifest = JSON.parse(await readFile(join(packageDirectory, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
    };
    for (const name of Object.keys(manifest.dependencies ?? {})) {
      if (name.startsWith("@dc/") || name in specs) continue;
      const directory = await installedPackage(packageDirectory, name);
      // The installed copy is what was published: it goes under `package/`, as in a registry tarball
      // (`npm pack` of it stopped with "Exit handler never called!" for fast-check). pnpm's store
      // hard-links identical files, and npm does not extract hard-link entries: each is stored whole.
      const tarball = join(destination, `${name.replace("/", "-")}.tgz`);
      await run(
        "tar",
        ["-czf", tarball, "--hard-dereference", "--transform", "s,^\\.,package,", "-C", directory, "."],
        destination,
      );
      specs[name] = `file:${tarball}`;
      await visit(directory);
    }
  };
  for (const workspacePackage of ["json-text", "domain", "client"]) await visit(join(REPOSITORY, "packages", workspacePackage));
  return specs;
};

/**
 * A new ESM project in `directory` depending on the client's tarball only,
 * installed with npm, with `files` (from test/support/consumer) copied in:
 * what an integrator who needs no snapshots installs. Overrides point
 * `@dc/domain` and `@dc/json-text` (the client's optional peers) at their
 * local tarballs, so npm never looks `@dc/*` up in a registry, and
 * `addDomain` installs them the way an integrator who sends snapshots would.
 */
export const createConsumerProject = async (
  directory: string,
  tarballs: Tarballs,
  files: ReadonlyArray<string>,
): Promise<ConsumerProject> => {
  await mkdir(directory, { recursive: true });
  const thirdParty = await packThirdPartyDependencies(join(directory, "..", "third-party"));
  const manifest = {
    name: "dc-consumer",
    version: "1.0.0",
    private: true,
    type: "module",
    dependencies: { "@dc/client": `file:${tarballs.client}` },
    // Every third-party package is pinned to its tarball packed from the workspace, and `@dc/*` to the local ones.
    overrides: { ...thirdParty, "@dc/domain": `file:${tarballs.domain}`, "@dc/json-text": `file:${tarballs.jsonText}` },
  };
  await writeFile(join(directory, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  for (const file of files) await copyFile(join(import.meta.dirname, file), join(directory, file));
  // Offline: everything is a local tarball, so a registry lookup would be a mistake, reported at once.
  await run("npm", ["install", "--no-audit", "--no-fund", "--offline"], directory, environment(true));
  return {
    directory,
    // What npm extracted is the tarball's package.json, unmodified.
    manifest: async (name) =>
      JSON.parse(await readFile(join(directory, "node_modules", name, "package.json"), "utf8")) as PackedManifest,
    installed: () => installedPackages(join(directory, "node_modules")),
    addDomain: async () => {
      // Written as the override spells it: npm refuses an override that differs from the direct dependency.
      const withDomain = {
        ...manifest,
        dependencies: { ...manifest.dependencies, "@dc/domain": `file:${tarballs.domain}`, "@dc/json-text": `file:${tarballs.jsonText}` },
      };
      await writeFile(join(directory, "package.json"), `${JSON.stringify(withDomain, null, 2)}\n`);
      await run("npm", ["install", "--no-audit", "--no-fund", "--offline"], directory, environment(true));
    },
  };
};

/** An installed package: its name and the bytes of its files (nested `node_modules` counted apart). */
export interface InstalledPackage {
  readonly name: string;
  readonly bytes: number;
  /** Paths of its files, relative to the package's folder. */
  readonly files: ReadonlyArray<string>;
}

const filesUnder = async (directory: string, prefix = ""): Promise<Array<{ path: string; bytes: number }>> => {
  const found: Array<{ path: string; bytes: number }> = [];
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory() && entry.name !== "node_modules") found.push(...(await filesUnder(path, `${prefix}${entry.name}/`)));
    else if (entry.isFile()) found.push({ path: `${prefix}${entry.name}`, bytes: (await stat(path)).size });
  }
  return found;
};

/** Every package under a `node_modules` folder, nested ones included, with its size on disk (apparent bytes). */
export const installedPackages = async (nodeModules: string): Promise<Array<InstalledPackage>> => {
  const packages: Array<InstalledPackage> = [];
  const visit = async (folder: string, name: string) => {
    const files = await filesUnder(folder);
    packages.push({ name, bytes: files.reduce((sum, file) => sum + file.bytes, 0), files: files.map((file) => file.path) });
    if (await exists(join(folder, "node_modules"))) await walk(join(folder, "node_modules"));
  };
  const walk = async (modules: string) => {
    for (const entry of await readdir(modules, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
      if (entry.name.startsWith("@")) {
        for (const scoped of await readdir(join(modules, entry.name), { withFileTypes: true })) {
          if (scoped.isDirectory()) await visit(join(modules, entry.name, scoped.name), `${entry.name}/${scoped.name}`);
        }
      } else await visit(join(modules, entry.name), entry.name);
    }
  };
  await walk(nodeModules);
  return packages.sort((a, b) => a.name.localeCompare(b.name));
};

const exists = async (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

/** The consumer's tsconfig: a strict project of its own, resolving packages as Node does. */
export const consumerTsconfig = {
  compilerOptions: {
    target: "ES2023",
    lib: ["ES2023", "DOM"],
    module: "NodeNext",
    moduleResolution: "NodeNext",
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    // The published declarations (and those of effect and openapi-fetch) are checked too.
    skipLibCheck: false,
    types: [],
    noEmit: true,
  },
  files: ["typed.ts"],
};

/** The same project's check of a consumer that sends snapshots (`@dc/domain` installed). */
export const consumerSnapshotsTsconfig = { ...consumerTsconfig, files: ["typed-snapshots.ts"] };
