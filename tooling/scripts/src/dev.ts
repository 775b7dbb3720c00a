/**
 * `pnpm dev` (and the README's `npm start`): the embedded database (or
 * DATABASE_URL), migrated, then the api and the worker as two processes, the
 * way they are deployed. Ctrl-C or SIGTERM stops both, then the database.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { createDatabase, migrateAll, repositoryRoot, resolveDevelopmentDatabase } from "@dc/db";

const root = repositoryRoot();
const database = await resolveDevelopmentDatabase();
const migrator = createDatabase({ connectionString: database.url, max: 1 });
await migrateAll(migrator, database.url);
await migrator.destroy();
process.stdout.write(`database ready (${database.owned ? "embedded, .data/postgres" : "existing server"})\n`);

const start = (name: string, entry: string): ChildProcess => {
  const child = spawn(process.execPath, [join(root, entry)], {
    stdio: "inherit",
    env: { ...process.env, DATABASE_URL: database.url },
  });
  child.on("exit", (code, signal) => {
    if (!stopping) {
      process.stderr.write(`${name} exited (${signal ?? code}); stopping\n`);
      void stop(1);
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

const stop = async (code: number): Promise<void> => {
  if (stopping) return;
  stopping = true;
  for (const child of children) child.kill("SIGTERM");
  await Promise.all(children.map(exited));
  await database.stop();
  process.exit(code);
};

children.push(start("api", "apps/api/src/main.ts"), start("worker", "apps/worker/src/main.ts"));
process.on("SIGINT", () => void stop(0));
process.on("SIGTERM", () => void stop(0));
