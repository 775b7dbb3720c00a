/** The real worker process (`node src/main.ts`) for tests that kill it: its JSON log lines and its exit. */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";

export interface WorkerProcess {
  readonly child: ChildProcess;
  /** Parsed JSON log records from stdout. */
  readonly records: Array<Record<string, unknown>>;
  readonly stderr: () => string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const appDirectory = join(import.meta.dirname, "..");

/** Spawns the worker with `env` on top of this process's environment minus the worker's own variables. */
export const spawnWorker = (env: Record<string, string>): WorkerProcess => {
  const base: Record<string, string | undefined> = { ...process.env };
  for (const key of [
    "DATABASE_URL",
    "NODE_ENV",
    "LOG_LEVEL",
    "WORKER_CONCURRENCY",
    "EMBEDDED_PG_PORT",
    "WORKER_STALE_LOCK_SECONDS",
    "WORKER_METRICS_PORT",
  ]) {
    delete base[key];
  }
  const child = spawn(process.execPath, ["src/main.ts"], {
    cwd: appDirectory,
    env: { ...base, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const records: Array<Record<string, unknown>> = [];
  let buffer = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk;
    const lines = buffer.split("\n");
    buffer = lines.pop() ?? "";
    for (const line of lines) {
      try {
        records.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // Not a log record.
      }
    }
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("close", (code, signal) => resolve({ code, signal })),
  );
  return { child, records, stderr: () => stderr, exited };
};

/** Stops, with SIGTERM, each of `workers` still running, and empties the list: an `afterEach` of the tests that spawn them. */
export const stopWorkers = async (workers: Array<WorkerProcess>): Promise<void> => {
  for (const worker of workers.splice(0)) {
    if (worker.child.exitCode === null && worker.child.signalCode === null) {
      worker.child.kill("SIGTERM");
      await worker.exited;
    }
  }
};
