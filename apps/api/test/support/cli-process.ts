/**
 * Runs the admin CLI as an administrator does: a separate process on the
 * test file's database, with `input` (or nothing) on its standard input.
 * It does not block this process's event loop, which also serves the api: a
 * synchronous run longer than the server's 5 s keep-alive left the next
 * request on a socket the server closed meanwhile (ECONNRESET).
 */
import { execFile } from "node:child_process";
import { join } from "node:path";

const cliEntry = join(import.meta.dirname, "..", "..", "src", "cli", "main.ts");

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export const cliRunner =
  (databaseUrl: string) =>
  (args: ReadonlyArray<string>, input?: string): Promise<CliRun> =>
    new Promise((resolve) => {
      const child = execFile(
        process.execPath,
        [cliEntry, ...args],
        { env: { ...process.env, DATABASE_URL: databaseUrl, NODE_ENV: "test" }, encoding: "utf8" },
        (error, stdout, stderr) =>
          resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr }),
      );
      child.stdin?.end(input ?? "");
    });
