/**
 * The real system for the client's tests: this file's own database (cloned
 * from the migrated template), the api and the worker started as child
 * processes on it exactly as deployed (`node apps/api/src/main.ts`), and a
 * tenant provisioned through the admin CLI. The client under test only ever
 * talks HTTP to them.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort, useTestDatabase } from "@dc/testing";
import { afterAll } from "vitest";

export const REPOSITORY = join(import.meta.dirname, "..", "..", "..", "..");
const API_MAIN = join(REPOSITORY, "apps", "api", "src", "main.ts");
const WORKER_MAIN = join(REPOSITORY, "apps", "worker", "src", "main.ts");
const CLI_MAIN = join(REPOSITORY, "apps", "api", "src", "cli", "main.ts");

/** What `cli tenant create` prints (apps/api/src/admin/tenants.ts). */
export interface Tenant {
  readonly company_id: string;
  readonly client_id: string;
  readonly client_secret: string;
  readonly scopes: string;
  readonly creditor_id: string;
  readonly timeline_id: string;
  readonly campaign_api_reference: string;
}

export interface Child {
  readonly output: () => string;
  readonly stop: () => Promise<void>;
}


/** The environment of a child: ours without anything that would point it elsewhere. */
export const childEnvironment = (databaseUrl: string, extra: Record<string, string> = {}): Record<string, string> => {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !["DATABASE_URL", "PORT", "HOST", "LOG_LEVEL", "NODE_ENV", "EMBEDDED_PG_PORT"].includes(key)) env[key] = value;
  }
  return { ...env, NODE_ENV: "test", LOG_LEVEL: "silent", DATABASE_URL: databaseUrl, ...extra };
};

const startChild = (script: string, env: Record<string, string>): Child & { readonly exited: Promise<number | null> } => {
  const child: ChildProcess = spawn(process.execPath, [script], { cwd: REPOSITORY, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.setEncoding("utf8").on("data", (text: string) => (output += text));
  child.stderr?.setEncoding("utf8").on("data", (text: string) => (output += text));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    })());
  afterAll(stop);
  return { output: () => output, stop, exited };
};

/** Starts the api on a free port and resolves once it answers HTTP. */
export const startApiProcess = async (databaseUrl: string): Promise<Child & { readonly url: string }> => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = startChild(API_MAIN, childEnvironment(databaseUrl, { PORT: String(port), HOST: "127.0.0.1" }));
  let exitCode: number | null | undefined;
  void child.exited.then((code) => (exitCode = code));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exitCode !== undefined) throw new Error(`the api exited with ${exitCode} before answering:\n${child.output()}`);
    try {
      const response = await fetch(`${url}/external-api/v1/openapi.json`);
      await response.body?.cancel();
      if (response.ok) return { ...child, url };
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`the api did not answer within 60 s:\n${child.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

/** Starts the worker; it processes snapshot jobs until stopped. */
export const startWorkerProcess = (databaseUrl: string): Child => startChild(WORKER_MAIN, childEnvironment(databaseUrl));

/** `cli tenant create --name <name>`: a company with a campaign and an OAuth client holding every scope. */
export const createTenant = async (databaseUrl: string, name: string): Promise<Tenant> => {
  const { stdout } = await promisify(execFile)(process.execPath, [CLI_MAIN, "tenant", "create", "--name", name], {
    cwd: REPOSITORY,
    env: childEnvironment(databaseUrl),
  });
  return JSON.parse(stdout) as Tenant;
};

/** This file's database, the api on it, and a first tenant. */
export const startSystem = async (tenantName = "Acme Collections") => {
  const database = await useTestDatabase();
  const api = await startApiProcess(database.url);
  const tenant = await createTenant(database.url, tenantName);
  return { database, api, tenant, baseUrl: api.url };
};
