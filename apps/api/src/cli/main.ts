/**
 * `pnpm --silent cli <command> [flags]`: the admin CLI. Works whether or not
 * the api runs, against the same database (DATABASE_URL, or the embedded
 * development database, found running or started here for the call).
 */
import { readFile } from "node:fs/promises";
import { text as readStream } from "node:stream/consumers";
import { parseArgs } from "node:util";
import {
  createDatabase,
  describeMigrationFailure,
  describeMigrationRetry,
  isMigrationFailure,
  migrateAll,
  resolveDevelopmentDatabase,
} from "@dc/db";
import { ConfigError, loadConfig } from "../config.ts";
import { makeIds } from "@dc/db";
import { CliError, commands } from "./commands.ts";
import { mailCommand } from "./mail.ts";
import { usage } from "./usage.ts";

/** A file's text, or standard input's (`--file -`, or no `--file` with input piped in). */
const readInput = async (path: string | undefined): Promise<string> => {
  if (path !== undefined && path !== "-") return readFile(path, "utf8");
  if (process.stdin.isTTY) throw new CliError("give the definition with --file PATH or on standard input");
  return readStream(process.stdin);
};

const run = async (argv: ReadonlyArray<string>): Promise<number> => {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      name: { type: "string" },
      email: { type: "string" },
      phone: { type: "string" },
      country: { type: "string" },
      company: { type: "string" },
      password: { type: "string" },
      role: { type: "string" },
      scopes: { type: "string" },
      "redirect-uri": { type: "string", multiple: true },
      "client-id": { type: "string" },
      timeline: { type: "string" },
      creditor: { type: "string" },
      "api-reference": { type: "string" },
      to: { type: "string" },
      limit: { type: "string" },
      dir: { type: "string" },
      sandbox: { type: "boolean" },
      default: { type: "boolean" },
      file: { type: "string" },
      version: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  const { help, ...flags } = values;
  // The captured development mail lives in files: no database is opened for it.
  if (positionals[0] === "mail" && help !== true) {
    process.stdout.write(`${JSON.stringify(await mailCommand(positionals, flags), null, 2)}\n`);
    return 0;
  }
  const name = positionals.slice(0, 2).join(" ");
  const command = commands[name];
  if (help === true || command === undefined || positionals.length !== 2) {
    if (help === true) {
      process.stdout.write(`${usage}\n`);
      return 0;
    }
    const problem =
      name === ""
        ? "no command given"
        : command === undefined
          ? `unknown command: ${name}`
          : `unexpected argument${positionals.length > 3 ? "s" : ""} after ${name}: ${positionals.slice(2).join(" ")}`;
    throw new CliError(`${problem}\n\n${usage}`);
  }
  const config = loadConfig(process.env, "cli");
  const database = config.databaseUrl === undefined
    ? await resolveDevelopmentDatabase(
          config.embeddedDatabasePort === undefined ? {} : { EMBEDDED_PG_PORT: String(config.embeddedDatabasePort) },
        )
    : { url: config.databaseUrl, owned: false, stop: async () => {} };
  const db = createDatabase({ connectionString: database.url, max: 2, applicationName: "debt-collection-cli" });
  try {
    if (config.environment !== "production") {
      await migrateAll(db, database.url, {
        ...config.migrationLocks,
        onRetry: (retry) => process.stderr.write(`${describeMigrationRetry(retry)}\n`),
      });
    }
    const output = await command({ db, ids: makeIds(config.idEncryptionKey), now: () => new Date(), readInput }, flags);
    process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
    return 0;
  } finally {
    await db.destroy();
    await database.stop();
  }
};

const code = await run(process.argv.slice(2)).catch((error: unknown) => {
  // Its message is the whole report, as `pnpm db:migrate` writes it (docs/operations.md, Upgrades).
  if (isMigrationFailure(error)) {
    process.stderr.write(`${describeMigrationFailure(error)}\n`);
    return 1;
  }
  const known =
    error instanceof CliError ||
    error instanceof ConfigError ||
    (error as { code?: unknown } | undefined)?.code?.toString().startsWith("ERR_PARSE_ARGS") === true;
  process.stderr.write(`${known ? (error as Error).message : `unexpected failure: ${error instanceof Error ? error.stack : String(error)}`}\n`);
  return known ? 2 : 1;
});
process.exit(code);
