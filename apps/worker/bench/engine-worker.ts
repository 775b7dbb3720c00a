/**
 * The worker of the collection-engine benchmark (apps/api/bench/engine.ts):
 * `startWorker` as src/main.ts runs it, with the engine, except that every
 * company's channels go to the sandbox provider (a live company's e-mail
 * would otherwise need SMTP). Reads DATABASE_URL, ID_ENCRYPTION_KEY and
 * WORKER_CONCURRENCY (default 4); stops on SIGTERM.
 */
import { makeIds } from "@dc/db";
import { createLogger, systemClock } from "@dc/runtime";
import { sandboxAdapter } from "../src/channels/sandbox-adapter.ts";
import { DEVELOPMENT_PUBLIC_BASE_URL } from "../src/config.ts";
import { startWorker } from "../src/worker.ts";

const url = process.env["DATABASE_URL"];
const key = process.env["ID_ENCRYPTION_KEY"];
if (url === undefined || key === undefined) throw new Error("DATABASE_URL and ID_ENCRYPTION_KEY are required");
const logger = createLogger("worker", "warn");
const worker = await startWorker({
  connectionString: url,
  concurrency: Number(process.env["WORKER_CONCURRENCY"] ?? 4),
  clock: systemClock,
  logger,
  ids: makeIds(new TextEncoder().encode(key)),
  links: { origin: DEVELOPMENT_PUBLIC_BASE_URL, secret: new TextEncoder().encode(key) },
  engine: {
    adapters: (db) => {
      const sandbox = sandboxAdapter(db);
      return { adapterFor: () => sandbox };
    },
  },
});
process.stdout.write("engine bench worker started\n");
process.once("SIGTERM", () => {
  void worker.stop().then(() => process.exit(0));
});
