/**
 * Webhook helpers for the api's tests: a real HTTP receiver on 127.0.0.1
 * (node:http), signature checks with the `standardwebhooks` package, payload
 * checks against the OpenAPI document's `webhooks` section, and the worker
 * started as a child process exactly as deployed (`node apps/worker/src/main.ts`).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { openApiDocument } from "@dc/contract/document";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { Webhook } from "standardwebhooks";
import { afterAll, expect } from "vitest";

export interface ReceivedRequest {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A receiver answering `status()` (200 by default) to every request, recording each. */
export const startReceiver = async () => {
  const requests: ReceivedRequest[] = [];
  let status = 200;
  const server = createServer((request, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      requests.push({ path: request.url ?? "", headers: request.headers, body: Buffer.concat(chunks).toString("utf8") });
      response.writeHead(status, { "content-type": "text/plain" });
      response.end(status < 300 ? "ok" : "nope");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    requests,
    answerWith: (next: number) => {
      status = next;
    },
  };
};

/** Verifies a request's signature with `standardwebhooks`; returns the parsed payload or throws. */
export const verifyWith = (secret: string, request: ReceivedRequest): unknown =>
  new Webhook(secret).verify(request.body, {
    "webhook-id": String(request.headers["webhook-id"]),
    "webhook-timestamp": String(request.headers["webhook-timestamp"]),
    "webhook-signature": String(request.headers["webhook-signature"]),
  });

const document = openApiDocument();
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
ajv.addSchema(document, "openapi.json");

/** Asserts `payload` is a valid body of event `type` per the document's `webhooks` section. */
export const expectWebhookPayload = (payload: unknown, type: string): void => {
  const validate = ajv.compile({ $ref: `openapi.json#/webhooks/${type}/post/requestBody/content/application~1json/schema` });
  const valid = validate(payload);
  expect(valid ? [] : validate.errors, `${type} payload does not match the document: ${JSON.stringify(payload).slice(0, 400)}`).toEqual([]);
};

const WORKER_MAIN = join(import.meta.dirname, "..", "..", "..", "worker", "src", "main.ts");

/**
 * Starts the worker process on `databaseUrl` (development settings: the api's
 * development id key, private destinations allowed); `environment` adds to
 * or overrides its variables, as `PUBLIC_BASE_URL`.
 */
export const startWorkerProcess = (databaseUrl: string, environment: Record<string, string> = {}) => {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !["DATABASE_URL", "NODE_ENV", "LOG_LEVEL", "ID_ENCRYPTION_KEY", "WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS"].includes(key)) {
      env[key] = value;
    }
  }
  const child: ChildProcess = spawn(process.execPath, [WORKER_MAIN], {
    env: { ...env, DATABASE_URL: databaseUrl, NODE_ENV: "development", LOG_LEVEL: "info", WORKER_CONCURRENCY: "2", ...environment },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.setEncoding("utf8").on("data", (text: string) => (output += text));
  child.stderr?.setEncoding("utf8").on("data", (text: string) => (output += text));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  afterAll(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  });
  /** Resolves once the worker logged that it started (it migrates first in development). */
  const ready = async (timeoutMs = 90_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    while (!output.includes('"msg":"worker started"')) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the worker did not start:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  return { output: () => output, ready };
};

/** Polls `probe` until it returns a value (15 s at most). */
export const eventually = async <T>(description: string, probe: () => Promise<T | undefined> | T | undefined): Promise<T> => {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${description}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};
