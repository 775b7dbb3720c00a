/**
 * `pnpm dev` (and the README's `npm start`): the embedded database (or
 * DATABASE_URL), migrated, then the api and the worker as two processes, the
 * way they are deployed. Ctrl-C or SIGTERM stops both, then the database
 * (which is why it runs detached, in dev-database.ts). Unless `SMTP_URL` is
 * set, a mail capture server runs in this process (mail-capture.ts,
 * `.data/mail`) and the worker's `SMTP_URL` points at it, so live
 * companies' e-mails are really sent and `pnpm cli mail list` shows them.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import {
  createDatabase,
  describeMigrationFailure,
  describeMigrationRetry,
  migrateAll,
  migrationLocksOf,
  MigrationVariables,
  repositoryRoot,
} from "@dc/db";
import { decodeVariables } from "@dc/runtime";
import type { DevelopmentDatabaseReady } from "./dev-database.ts";
import { type MailCapture, startMailCapture } from "./mail-capture.ts";

const settings = decodeVariables(MigrationVariables, process.env);
if (settings._tag === "Left") {
  process.stderr.write(`invalid configuration:\n  ${settings.left.join("\n  ")}\n`);
  process.exit(1);
}
const root = repositoryRoot();
// The database lives in a detached process (dev-database.ts): a terminal's Ctrl-C
// must not reach PostgreSQL before the api and the worker have stopped.
const databaseHost = spawn(process.execPath, [join(root, "tooling/scripts/src/dev-database.ts")], {
  detached: true,
  stdio: ["ignore", "inherit", "inherit", "ipc"],
});
const database = await new Promise<DevelopmentDatabaseReady>((resolve) => {
  const failed = (code: number | null) => {
    // dev-database.ts has said why on stderr.
    process.stderr.write(`the development database did not start (exit ${code})\n`);
    process.exit(1);
  };
  databaseHost.once("exit", failed);
  databaseHost.once("message", (message) => {
    databaseHost.off("exit", failed);
    resolve(message as DevelopmentDatabaseReady);
  });
});
const migrator = createDatabase({ connectionString: database.url, max: 1 });
try {
  await migrateAll(migrator, database.url, {
    ...migrationLocksOf(settings.right),
    onRetry: (retry) => process.stderr.write(`${describeMigrationRetry(retry)}\n`),
  });
} catch (error) {
  // One line, as `pnpm db:migrate` says it: the message names the migration and what to do.
  process.stderr.write(`${describeMigrationFailure(error)}\n`);
  await migrator.destroy();
  // The database host stops the cluster it started (if it did) before it exits.
  const hostExited = new Promise((resolve) => databaseHost.once("exit", resolve));
  if (databaseHost.connected) databaseHost.send("stop");
  if (databaseHost.exitCode === null && databaseHost.signalCode === null) await hostExited;
  process.exit(1);
}
await migrator.destroy();
process.stdout.write(`database ready (${database.owned ? "embedded, .data/postgres" : "existing server"})\n`);

/** The capture server's port when free; another free port otherwise. */
const MAIL_CAPTURE_PORT = 2525;
const startCapture = async (): Promise<MailCapture> => {
  const options = {
    directory: join(root, ".data", "mail"),
    onError: (error: Error) => process.stderr.write(`mail capture: ${error.message}\n`),
  };
  try {
    return await startMailCapture({ ...options, port: MAIL_CAPTURE_PORT });
  } catch (error) {
    if ((error as { code?: unknown }).code !== "EADDRINUSE") throw error;
    return startMailCapture({ ...options, port: 0 });
  }
};
const configuredSmtp = (process.env["SMTP_URL"] ?? "").trim();
const capture = configuredSmtp === "" ? await startCapture() : undefined;
const smtpUrl = capture?.url ?? configuredSmtp;
process.stdout.write(
  capture === undefined
    ? "e-mail goes to the server of SMTP_URL\n"
    : `mail capture on ${capture.url} (.data/mail; pnpm cli mail list)\n`,
);

const start = (name: string, entry: string): ChildProcess => {
  const child = spawn(process.execPath, [join(root, entry)], {
    stdio: "inherit",
    env: { ...process.env, DATABASE_URL: database.url, SMTP_URL: smtpUrl },
  });
  child.on("exit", (code, signal) => {
    if (!stopping) {
      process.stderr.write(`${name} exited (${signal ?? code}); stopping\n`);
      void stop(1, "SIGTERM");
    }
  });
  return child;
};

let stopping = false;
const children: ChildProcess[] = [];
const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once("exit", () => resolve()));

/** How long the apps get to stop by themselves after a Ctrl-C before they are sent SIGTERM. */
const CTRL_C_GRACE_MS = 30_000;

/**
 * Stops the apps, then the database. `signal` is sent to the apps; without
 * one (Ctrl-C), the terminal has already sent SIGINT to the whole foreground
 * process group, apps included, and a second signal would make them exit at
 * once instead of finishing their requests and jobs (their rule for a second
 * Ctrl-C). They are sent SIGTERM only if still running after the grace period.
 */
const stop = async (code: number, signal: NodeJS.Signals | undefined): Promise<void> => {
  if (stopping) return;
  stopping = true;
  const send = (toSend: NodeJS.Signals) => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill(toSend);
  };
  if (signal === undefined) setTimeout(() => send("SIGTERM"), CTRL_C_GRACE_MS).unref();
  else send(signal);
  await Promise.all(children.map(exited));
  await capture?.close();
  if (databaseHost.connected) databaseHost.send("stop");
  await exited(databaseHost);
  process.exit(code);
};

children.push(start("api", "apps/api/src/main.ts"), start("worker", "apps/worker/src/main.ts"));
process.on("SIGINT", () => void stop(0, undefined));
process.on("SIGTERM", () => void stop(0, "SIGTERM"));
