/**
 * A deployable's image reproduced without Docker, for tests that start an
 * app the way its image does. The build context (the repository's files that
 * are neither git-ignored nor docker-ignored) is copied to a new directory,
 * the install stage of the app's Dockerfile runs there, offline from pnpm's
 * store, and the runtime stage's environment and command are read from the
 * same Dockerfile, so the test follows the file and cannot drift from it.
 *
 * It catches what the workspace hides: a package the app's code imports but
 * declares only for development is reachable in the workspace and missing in
 * the image, whose start then fails with ERR_MODULE_NOT_FOUND.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { cp, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { repositoryRoot } from "@dc/db";

const run = promisify(execFile);

export interface ImageInstall {
  /** The image's `/app`: the build context with the install stage's work done. */
  readonly directory: string;
  /** The runtime stage's `ENV` settings. */
  readonly environment: Readonly<Record<string, string>>;
  /** The runtime stage's `CMD`, its `node` replaced by this process's Node (checked to be the image's version). */
  readonly command: readonly [string, ...string[]];
  /** The runtime stage's `HEALTHCHECK` command (exec form), its `node` replaced likewise, when it has one. */
  readonly healthCheck: readonly [string, ...string[]] | undefined;
  /** Runs `command` in the image's directory with `environment` alone (what a container has), as `docker exec` would. */
  readonly run: (
    command: readonly [string, ...string[]],
    environment: Readonly<Record<string, string>>,
  ) => Promise<Ran>;
  readonly remove: () => Promise<void>;
}

export interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

interface Stage {
  readonly base: string;
  readonly environment: Record<string, string>;
  readonly runs: string[];
  /** Paths under `/app` that `COPY --from=install` takes from the install stage. */
  readonly fromInstall: string[];
  command?: [string, ...string[]];
  healthCheck?: [string, ...string[]];
}

/** An exec-form argument list (`["node", "main.ts"]`) of `instruction`. */
const execForm = (instruction: string, argument: string): [string, ...string[]] => {
  const parsed = JSON.parse(argument) as unknown;
  if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every((part) => typeof part === "string")) {
    throw new Error(`cannot read ${instruction}: only the exec form is read`);
  }
  return parsed as [string, ...string[]];
};

/** The stages of a Dockerfile, in order: their `ENV`, `RUN` and `CMD` instructions (the exec form of `CMD` only). */
const stagesOf = (dockerfile: string): Stage[] => {
  const instructions = dockerfile
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    const [keyword = "", ...rest] = instruction.split(/\s+/);
    const argument = rest.join(" ");
    const stage = stages.at(-1);
    switch (keyword.toUpperCase()) {
      case "FROM":
        stages.push({ base: rest[0] ?? "", environment: {}, runs: [], fromInstall: [] });
        break;
      case "ENV": {
        const setting = /^([A-Za-z_][A-Za-z0-9_]*)=(?:"([^"]*)"|(\S*))$/.exec(argument);
        if (stage === undefined || setting === null) throw new Error(`cannot read ${instruction}`);
        stage.environment[setting[1]!] = setting[2] ?? setting[3] ?? "";
        break;
      }
      case "RUN":
        stage?.runs.push(argument);
        break;
      case "COPY": {
        const parts = rest.filter((part) => !part.startsWith("--"));
        if (stage !== undefined && rest.includes("--from=install")) {
          for (const source of parts.slice(0, -1)) {
            if (!source.startsWith("/app/")) throw new Error(`cannot read ${instruction}: sources outside /app`);
            stage.fromInstall.push(source.slice("/app/".length));
          }
        }
        break;
      }
      case "CMD":
        if (stage === undefined) throw new Error(`${instruction} before FROM`);
        stage.command = execForm(instruction, argument);
        break;
      case "HEALTHCHECK": {
        // Options (--interval=10s ...), then CMD and its exec form.
        const command = /(?:^|\s)CMD\s+(\[.*\])$/.exec(argument)?.[1];
        if (stage === undefined || command === undefined) throw new Error(`cannot read ${instruction}`);
        stage.healthCheck = execForm(instruction, command);
        break;
      }
    }
  }
  return stages;
};

/**
 * A matcher of the paths `.dockerignore` excludes. Only its forms this
 * repository uses are read (`name`, `dir/name`, and either of these after
 * `**` and a slash, each excluding what is under it too); any other form
 * throws rather than being misread.
 */
const dockerIgnored = (root: string): ((file: string) => boolean) => {
  const escape = (text: string) => [...text].map((c) => ("\\^$.*+?()[]{}|".includes(c) ? `\\${c}` : c)).join("");
  const patterns = readFileSync(join(root, ".dockerignore"), "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const anywhere = line.startsWith("**/");
      const path = anywhere ? line.slice(3) : line;
      if ([..."*?!["].some((c) => path.includes(c)))
        throw new Error(`.dockerignore: ${line} is a form installAsImage does not read`);
      return new RegExp(`^${anywhere ? "(.*/)?" : ""}${escape(path)}(/|$)`);
    });
  return (file) => patterns.some((pattern) => pattern.test(file));
};

/**
 * Removes from `directory` everything but `kept` (paths relative to it) and
 * the folders leading to them: what the runtime stage leaves of the install
 * stage. Without a `COPY --from=install`, the whole directory is kept.
 */
const keepOnly = async (directory: string, kept: ReadonlyArray<string>): Promise<void> => {
  if (kept.length === 0) return;
  const prune = async (relative: string): Promise<void> => {
    for (const entry of await readdir(join(directory, relative), { withFileTypes: true })) {
      const path = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (kept.includes(path)) continue;
      if (entry.isDirectory() && kept.some((keep) => keep.startsWith(`${path}/`))) await prune(path);
      else await rm(join(directory, path), { recursive: true, force: true });
    }
  };
  await prune("");
};

/** The image's `node` is this process's Node, checked to be the image's version. */
const thisNode = (program: string): string => (program === "node" ? process.execPath : program);

/**
 * Builds `dockerfile`'s image as a directory: its first stage's `RUN`s (but
 * the global pnpm install: the repository's own pnpm, the same version, runs
 * instead, offline) with that stage's `ENV`, then keeps only the paths the
 * last stage copies from it (`COPY --from=install /app/...`), with that
 * stage's settings.
 */
export const installAsImage = async (dockerfile: string): Promise<ImageInstall> => {
  const root = repositoryRoot(dirname(dockerfile));
  const stages = stagesOf(readFileSync(dockerfile, "utf8"));
  const install = stages[0];
  const runtime = stages.at(-1);
  if (install === undefined || runtime?.command === undefined) throw new Error(`${dockerfile} has no stages or no CMD`);
  const imageNode = /^node:(\d+\.\d+\.\d+)-/.exec(runtime.base)?.[1];
  if (`v${imageNode}` !== process.version) {
    throw new Error(`${dockerfile} runs on ${runtime.base}, this process on Node ${process.version}`);
  }

  const directory = await mkdtemp(join(tmpdir(), "dc-image-"));
  try {
    const listed = await run("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
      cwd: root,
      maxBuffer: 64 * 1024 * 1024,
    });
    const ignored = dockerIgnored(root);
    const files = listed.stdout.split("\0").filter((file) => file !== "" && !ignored(file));
    for (const file of files) await cp(join(root, file), join(directory, file), { dereference: false });

    const pnpmBin = join(root, "node_modules", ".bin");
    for (const command of install.runs.filter((command) => !/^npm install --global pnpm@/.test(command))) {
      await run("sh", ["-c", command], {
        cwd: directory,
        env: {
          ...process.env,
          ...install.environment,
          PATH: `${pnpmBin}:${process.env["PATH"] ?? ""}`,
          npm_config_offline: "true",
        },
        maxBuffer: 64 * 1024 * 1024,
      });
    }
    await keepOnly(directory, runtime.fromInstall);
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw error;
  }

  const withThisNode = ([program, ...args]: [string, ...string[]]): [string, ...string[]] => [
    thisNode(program),
    ...args,
  ];
  return {
    directory,
    environment: runtime.environment,
    command: withThisNode(runtime.command),
    healthCheck: runtime.healthCheck === undefined ? undefined : withThisNode(runtime.healthCheck),
    run: ([program, ...args], environment) =>
      new Promise((resolve) =>
        execFile(
          thisNode(program),
          args,
          { cwd: directory, env: environment, encoding: "utf8" },
          (error, stdout, stderr) => resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr }),
        ),
      ),
    remove: () => rm(directory, { recursive: true, force: true }),
  };
};
