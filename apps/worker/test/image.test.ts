/**
 * The worker as its image runs it: the Dockerfile's production-only install
 * of the workspace, then its command with its environment, in production
 * mode against a migrated database. The workspace's own install also holds
 * every package's development dependencies, so only this test sees an import
 * the image cannot resolve.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { freePort, installAsImage, useTestDatabase } from "@dc/testing";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { waitFor } from "./wait-for.ts";

const { db, url: databaseUrl } = await useTestDatabase();
const image = await installAsImage(join(import.meta.dirname, "..", "Dockerfile"));
afterAll(() => image.remove());

const running: ChildProcess[] = [];
afterAll(() => {
  for (const child of running) child.kill("SIGKILL");
});

/** The image's HEALTHCHECK's exit code in `environment`. */
const healthCheck = async (environment: Record<string, string>) => {
  if (image.healthCheck === undefined) throw new Error("the worker image has no HEALTHCHECK");
  return (await image.run(image.healthCheck, environment)).code;
};

describe("the worker image", () => {
  it("is installed without development dependencies and runs in production", () => {
    expect(image.environment["NODE_ENV"]).toBe("production");
    expect(image.command.slice(1)).toEqual(["apps/worker/src/main.ts"]);
  });

  it("starts, passes its HEALTHCHECK, runs a job, and stops on SIGTERM", async () => {
    const metricsPort = await freePort();
    const [program, ...args] = image.command;
    const environment = {
      ...image.environment,
      PATH: process.env["PATH"] ?? "",
      DATABASE_URL: databaseUrl,
      ID_ENCRYPTION_KEY: "image-test-key-0123456789abcdef0123456789",
      WORKER_METRICS_PORT: String(metricsPort),
    };
    const child = spawn(program, args, { cwd: image.directory, env: environment, stdio: ["ignore", "pipe", "pipe"] });
    running.push(child);
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

    await waitFor("the worker's start", () => {
      if (child.exitCode !== null) throw new Error(`the worker exited (${child.exitCode}):\n${output}`);
      return output.includes('"worker started"') ? true : undefined;
    });
    expect((await fetch(`http://127.0.0.1:${metricsPort}/healthz`)).status).toBe(200);
    expect(await healthCheck(environment)).toBe(0);

    await sql`select graphile_worker.add_job('purge_expired', '{}'::json)`.execute(db);
    await waitFor("the job's completion", async () => {
      // The engine's sweep job always waits in the queue: only the job added here must be gone.
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from graphile_worker.jobs where task_identifier = 'purge_expired'
      `.execute(db);
      return rows[0]?.n === 0 ? true : undefined;
    });
    expect(output).not.toMatch(/"level":(50|60)/);

    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(await healthCheck(environment)).toBe(1);
  });
});
