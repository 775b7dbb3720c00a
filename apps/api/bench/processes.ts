/**
 * The benchmarks' processes: an ephemeral database (embedded PostgreSQL, or
 * BENCH_DATABASE_URL's server), the api and the worker started as deployed
 * (`node apps/{api,worker}/src/main.ts`, production mode), their memory, and tokens.
 * Every child is killed when the benchmark process exits, even on a crash.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import {
  createDatabase,
  type Database,
  DEFAULT_MIGRATION_LOCKS,
  freePort,
  migrateAll,
  repositoryRoot,
  startEmbeddedPostgres,
  withDatabaseName,
} from "@dc/db";
import { type Kysely, sql } from "kysely";
import { API_MALLOC_ARENA_MAX, API_NODE_OPTIONS } from "../src/runtime.ts";
import { WORKER_NODE_OPTIONS } from "../../worker/src/runtime.ts";

export { freePort };

const root = repositoryRoot();
const live = new Set<ChildProcess>();
// A benchmark that dies (or is interrupted) must not leave api processes behind.
process.once("exit", () => {
  for (const child of live) child.kill("SIGKILL");
});


export interface BenchDatabase {
  readonly url: string;
  readonly db: Kysely<Database>;
  /** Drops the database and stops the embedded server; safe to call on a failed run. */
  readonly close: () => Promise<void>;
}

/** A new, migrated database on an ephemeral embedded PostgreSQL (or on BENCH_DATABASE_URL's server). */
export const startBenchDatabase = async (): Promise<BenchDatabase> => {
  const explicit = process.env["BENCH_DATABASE_URL"];
  const server =
    explicit !== undefined && explicit !== ""
      ? { url: explicit, stop: async () => {} }
      : await startEmbeddedPostgres({
          dataDir: join(tmpdir(), `dc-bench-${randomBytes(4).toString("hex")}`),
          port: await freePort(),
          ephemeral: true,
        });
  const admin = createDatabase({ connectionString: server.url, max: 1 });
  const name = `bench_${randomBytes(4).toString("hex")}`;
  const url = withDatabaseName(server.url, name);
  let db: Kysely<Database> | undefined;
  const close = async () => {
    await db?.destroy();
    await sql`drop database if exists ${sql.id(name)} with (force)`.execute(admin).catch(() => {});
    await admin.destroy();
    await server.stop();
  };
  try {
    await sql`create database ${sql.id(name)}`.execute(admin);
    db = createDatabase({ connectionString: url, max: 4 });
    await migrateAll(db, url, DEFAULT_MIGRATION_LOCKS);
    return { url, db, close };
  } catch (error) {
    await close();
    throw error;
  }
};

export interface Service {
  readonly child: ChildProcess;
  readonly pid: number;
  /** The last few kilobytes of its stdout (pino logs), for failure messages. */
  readonly output: () => string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. */
  readonly stop: (graceMs?: number) => Promise<void>;
}

/**
 * Starts `node <script>` from the repository root (or `from`, another checkout,
 * for an A/B run) with `env` on top of ours; stdout is kept in a ring.
 * `BENCH_ECHO_LOGS=<text>` copies each of its log lines containing that text
 * to our stderr (`BENCH_ECHO_LOGS="snapshot processed"`: the worker's phases).
 */
export const startService = (script: string, env: Record<string, string>, from: string = root): Service => {
  const child = spawn(process.execPath, [join(from, script)], {
    cwd: from,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  live.add(child);
  let output = "";
  // Always read stdout: a full pipe would block the child.
  child.stdout?.setEncoding("utf8").on("data", (text: string) => (output = (output + text).slice(-8000)));
  const echoed = process.env["BENCH_ECHO_LOGS"];
  if (echoed !== undefined && echoed !== "" && child.stdout !== null) {
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (line.includes(echoed)) process.stderr.write(`${line}\n`);
    });
  }
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  void exited.then(() => live.delete(child));
  const stop = async (graceMs = 10_000) => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    await exited;
    clearTimeout(timer);
  };
  if (child.pid === undefined) throw new Error(`could not start ${script}`);
  return { child, pid: child.pid, output: () => output, stop };
};

/** Resolves once `url` answers 2xx; rejects when the service exits first or after `timeoutMs`. */
export const waitForHttp = async (service: Service, url: string, timeoutMs = 60_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (service.child.exitCode !== null || service.child.signalCode !== null) {
      throw new Error(
        `process exited (${service.child.exitCode ?? service.child.signalCode}) before answering ${url}:\n${service.output()}`,
      );
    }
    try {
      const response = await fetch(url);
      await response.body?.cancel();
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms:\n${service.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

/** Resolves once the child's stdout has printed a line matching `pattern`. */
export const waitForLine = (child: ChildProcess, pattern: RegExp): Promise<void> =>
  new Promise((resolve, reject) => {
    let buffer = "";
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString();
      if (pattern.test(buffer)) resolve();
    };
    child.stdout?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`process exited (${code}) before ready: ${buffer.slice(-2000)}`)));
  });

export interface ApiOptions {
  readonly databaseUrl: string;
  readonly idKey: string;
  readonly port: number;
  readonly rateLimitScale: number;
  readonly env?: Record<string, string>;
  /** The checkout whose api runs (default: this one). */
  readonly root?: string;
}

/** The api in production mode on 127.0.0.1:`port`, resolved once `/healthz` answers. */
export const startApiService = async (options: ApiOptions): Promise<Service & { readonly url: string }> => {
  const api = startService("apps/api/src/main.ts", {
    NODE_ENV: "production",
    DATABASE_URL: options.databaseUrl,
    ID_ENCRYPTION_KEY: options.idKey,
    // Production requires the public origin (the OAuth issuer); the benchmarks never follow it.
    PUBLIC_BASE_URL: "https://api.bench.invalid",
    PORT: String(options.port),
    HOST: "127.0.0.1",
    LOG_LEVEL: "warn",
    RATE_LIMIT_SCALE: String(options.rateLimitScale),
    NODE_OPTIONS: API_NODE_OPTIONS,
    MALLOC_ARENA_MAX: API_MALLOC_ARENA_MAX,
    ...options.env,
  }, options.root);
  const url = `http://127.0.0.1:${options.port}`;
  try {
    await waitForHttp(api, `${url}/healthz`);
  } catch (error) {
    await api.stop();
    throw error;
  }
  return { ...api, url };
};

/** The worker in production mode; it applies snapshot jobs until stopped. */
export const startWorkerService = (options: {
  readonly databaseUrl: string;
  readonly idKey: string;
  readonly env?: Record<string, string>;
  /** The checkout whose worker runs (default: this one). */
  readonly root?: string;
}): Service =>
  startService("apps/worker/src/main.ts", {
    NODE_ENV: "production",
    DATABASE_URL: options.databaseUrl,
    ID_ENCRYPTION_KEY: options.idKey,
    // Info when its lines are echoed (BENCH_ECHO_LOGS), for the snapshot's phases.
    LOG_LEVEL: (process.env["BENCH_ECHO_LOGS"] ?? "") === "" ? "warn" : "info",
    NODE_OPTIONS: WORKER_NODE_OPTIONS,
    ...options.env,
  }, options.root);

/** Resident memory of a process now (`VmRSS`) and its peak so far (`VmHWM`), in MB. */
export const rssOf = (pid: number): { rssMb: number; peakMb: number } => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rssMb: Math.round(kb("VmRSS") / 1024), peakMb: Math.round(kb("VmHWM") / 1024) };
};

export interface PeakRss {
  /** The highest resident memory since the watch began, in MB. */
  readonly peakMb: number;
  /** `VmHWM`: the kernel's own high-water mark, reset when the watch began; `sampled`: the highest `VmRSS` read. */
  readonly source: "VmHWM" | "sampled";
}

/**
 * Watches `pid`'s resident memory until `stop`. Writing 5 to
 * `/proc/<pid>/clear_refs` resets the kernel's high-water mark (`VmHWM`) to
 * the current RSS, so `VmHWM` at the stop is the true peak of the phase,
 * however short the spike. Where the reset is refused (another user's
 * process, an old kernel) `VmHWM` is the peak of the process's whole life,
 * so the peak falls back to `VmRSS` sampled every `intervalMs`.
 */
export const watchPeakRss = (pid: number, intervalMs = 50): { readonly stop: () => PeakRss } => {
  let reset = true;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
  } catch {
    reset = false;
  }
  let sampled = rssOf(pid).rssMb;
  const timer = setInterval(() => {
    try {
      sampled = Math.max(sampled, rssOf(pid).rssMb);
    } catch {
      // The process has exited: the caller's wait on it reports that.
    }
  }, intervalMs);
  return {
    stop: () => {
      clearInterval(timer);
      const now = rssOf(pid);
      // The high-water mark is never below an RSS sampled after its reset; the max guards the rounding.
      return reset
        ? { peakMb: Math.max(now.peakMb, sampled), source: "VmHWM" }
        : { peakMb: Math.max(sampled, now.rssMb), source: "sampled" };
    },
  };
};

/** A client-credentials access token (every scope of the client). */
export const fetchToken = async (
  baseUrl: string,
  client: { readonly client_id: string; readonly client_secret: string },
): Promise<string> => {
  const response = await fetch(`${baseUrl}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: client.client_id,
      client_secret: client.client_secret,
    }),
  });
  if (!response.ok) throw new Error(`token request failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
};
