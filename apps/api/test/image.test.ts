/**
 * The api as its image runs it: the Dockerfile's production-only install of
 * the workspace, then its command with its environment, in production mode
 * against a migrated database. The workspace's own install also holds every
 * package's development dependencies, so only this test sees an import the
 * image cannot resolve. The migration script and the admin CLI ship in the
 * same image and are run from it too (docs/operations.md, Images).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { installAsImage, useTestDatabase } from "@dc/testing";
import { afterAll, describe, expect, it } from "vitest";

const { url: databaseUrl } = await useTestDatabase();
const image = await installAsImage(join(import.meta.dirname, "..", "Dockerfile"));
afterAll(() => image.remove());

/** What an operator sets beside the image's own settings. */
const deployment = {
  ...image.environment,
  PATH: process.env["PATH"] ?? "",
  DATABASE_URL: databaseUrl,
  ID_ENCRYPTION_KEY: "image-test-key-0123456789abcdef0123456789",
  PUBLIC_BASE_URL: "https://api.example.test",
  PORT: "0",
  HOST: "127.0.0.1",
};

const [program, ...args] = image.command;
const running: ChildProcess[] = [];
afterAll(() => {
  for (const child of running) child.kill("SIGKILL");
});

/** Starts the image's command; resolves with its url once it logs `api started`, or rejects with what it wrote when it exits first. */
const startImage = () =>
  new Promise<{ child: ChildProcess; url: string; exited: Promise<number | null> }>((resolve, reject) => {
    const child = spawn(program, args, { cwd: image.directory, env: deployment, stdio: ["ignore", "pipe", "pipe"] });
    running.push(child);
    let output = "";
    const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
    void exited.then((code) => reject(new Error(`the api exited (${code}) before it started:\n${output}`)));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
      const started = output
        .split("\n")
        .flatMap((line) => (line.includes('"api started"') ? [JSON.parse(line) as { url: string }] : []))[0];
      if (started !== undefined) resolve({ child, url: started.url, exited });
    });
  });

/** The image's HEALTHCHECK's exit code, with `PORT` the port of `url` (as in a container, where the api listens on PORT). */
const healthCheck = async (url: string) => {
  if (image.healthCheck === undefined) throw new Error("the api image has no HEALTHCHECK");
  return (await image.run(image.healthCheck, { ...deployment, PORT: new URL(url).port })).code;
};

describe("the api image", () => {
  it("is installed without development dependencies", () => {
    expect(image.environment["NODE_ENV"]).toBe("production");
    expect(image.command.slice(1)).toEqual(["apps/api/src/main.ts"]);
  });

  it("migrates, starts in production, serves a tenant made by its CLI and its documentation, and stops on SIGTERM", async () => {
    const migrated = await image.run(["node", "packages/db/src/scripts/migrate.ts"], deployment);
    expect(migrated).toMatchObject({ code: 0, stderr: "" });

    const api = await startImage();
    expect((await fetch(`${api.url}/readyz`)).status).toBe(200);
    // The image's HEALTHCHECK, on the port the api listens on (PORT in a container).
    expect(await healthCheck(api.url)).toBe(0);

    const created = await image.run(
      ["node", "apps/api/src/cli/main.ts", "tenant", "create", "--name", "Image Tenant"],
      deployment,
    );
    expect(created.stderr).toBe("");
    expect(created.code).toBe(0);
    const tenant = JSON.parse(created.stdout) as Record<string, string>;

    const tokenResponse = await fetch(`${api.url}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: tenant["client_id"]!,
        client_secret: tenant["client_secret"]!,
        scope: "debts:write",
      }).toString(),
    });
    expect(tokenResponse.status).toBe(200);
    const { access_token: token } = (await tokenResponse.json()) as { access_token: string };

    const debt = await fetch(`${api.url}/external-api/v1/debts`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        creditor_id: tenant["creditor_id"],
        firstname: "Ada",
        lastname: "Lovelace",
        email: "ada@example.com",
        amount: 120.5,
        currency: "EUR",
        internal_id: "image-1",
      }),
    });
    expect(debt.status).toBe(201);
    expect(((await debt.json()) as { message: string }).message).toBe("Debt created successfully");

    // Read from the installed packages at first use, not at start.
    for (const path of ["/docs", "/docs/guide", "/docs/assets/scalar.js", "/external-api/v1/openapi.json"]) {
      expect({ path, status: (await fetch(`${api.url}${path}`)).status }).toEqual({ path, status: 200 });
    }

    api.child.kill("SIGTERM");
    expect(await api.exited).toBe(0);
    expect(await healthCheck(api.url)).toBe(1);
  });
});
