/**
 * The connection factory shared by the api, the worker, the CLI and the tests.
 */
import * as JsonText from "@dc/json-text";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { preparingPool } from "./prepared-statements.ts";
import type { Database } from "./schema.ts";

export { PREPARED } from "./prepared-statements.ts";

const INT8_OID = 20;
const DATE_OID = 1082;
const JSON_OID = 114;
const JSONB_OID = 3802;

/**
 * Type parsers for this project's pools only (never the process-wide pg
 * defaults): `bigint` ids and minor-unit amounts fit a JS number exactly
 * below 2^53, which the domain checks before writing; dates stay `YYYY-MM-DD`;
 * json and jsonb go through `JsonText.parse`, since PostgreSQL writes the keys
 * `"`, `\` and control characters escaped, and V8's JSON.parse can misread
 * such a key after an earlier text primed its key cache (docs/decisions/0210).
 */
const typeParsers: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    if (oid === INT8_OID) return (value: string) => Number(value);
    if (oid === DATE_OID) return (value: string) => value;
    if (oid === JSON_OID || oid === JSONB_OID) return JsonText.parse;
    return pg.types.getTypeParser(oid, format);
  }) as pg.CustomTypesConfig["getTypeParser"],
};

export interface PoolOptions {
  readonly connectionString: string;
  readonly max?: number;
  readonly applicationName?: string;
  /** Told about idle connections the server closed (restart, failover); the pool replaces them. */
  readonly onIdleConnectionError?: (error: Error) => void;
  /**
   * Plan every statement of these connections with PostgreSQL's generic plan
   * (`plan_cache_mode = force_generic_plan`), so a PREPARED statement is
   * planned once per connection whatever its parameters (docs/decisions/0017).
   * Only for a pool that runs fixed-shape statements whose best plan does not
   * depend on their values.
   */
  readonly genericPlans?: boolean;
  /**
   * PostgreSQL's `statement_timeout` for these connections, in milliseconds:
   * a statement still running (or waiting for a lock) after this long is cancelled
   * with SQLSTATE 57014. Unset: the server's setting (none by default).
   */
  readonly statementTimeoutMs?: number;
  /**
   * PostgreSQL's `idle_in_transaction_session_timeout`, in milliseconds: a
   * session that leaves a transaction open and idle this long is ended, and
   * its locks released. Unset: the server's setting (none by default).
   */
  readonly idleInTransactionTimeoutMs?: number;
  /**
   * PostgreSQL's `lock_timeout`, in milliseconds: a statement that waits this
   * long for a lock fails with SQLSTATE 55P03. For a pool handed to
   * graphile-worker's migrations (docs/decisions/0028). Unset: the
   * server's setting (none by default).
   */
  readonly lockTimeoutMs?: number;
  /** How long an idle connection is kept before the pool closes it (default 30 s; 0 keeps it). */
  readonly idleTimeoutMillis?: number;
  /**
   * Read values with node-postgres's own type parsers instead of this
   * project's (`bigint` as a string, `date` as a Date): for a pool handed to
   * a library that expects them, such as graphile-worker's job ids.
   */
  readonly driverTypeParsers?: boolean;
}

/** The placeholder host that lets `URL` read a socket URL without a host (`postgres://user@/db?host=/sock`), as pg does. */
const NO_HOST = "___NO_HOST___";

/**
 * The connection string with `setting` added to the server settings
 * (`options`) it may already carry: node-postgres lets the string's
 * `options` replace its `options` option, so the setting goes into a URL.
 * A URL without a host (a socket given by `?host=`) is read as node-postgres
 * reads it, with a placeholder host. A string that is not a URL
 * (`/socket/directory dbname`) carries no settings, and gets the option.
 */
export const withServerSetting = (connectionString: string, setting: string): pg.PoolConfig => {
  const hostless = connectionString.includes("@/");
  let parsed: URL;
  try {
    parsed = new URL(hostless ? connectionString.replace("@/", `@${NO_HOST}/`) : connectionString);
  } catch {
    return { connectionString, options: setting };
  }
  parsed.searchParams.set("options", [parsed.searchParams.get("options"), setting].filter(Boolean).join(" "));
  const written = parsed.toString();
  return { connectionString: hostless ? written.replace(`@${NO_HOST}/`, "@/") : written };
};

/** The server settings `options` asks of each connection, as PostgreSQL's startup `options` text. */
const serverSettings = (options: PoolOptions): string =>
  [
    options.genericPlans === true ? "plan_cache_mode=force_generic_plan" : undefined,
    options.statementTimeoutMs === undefined ? undefined : `statement_timeout=${options.statementTimeoutMs}`,
    options.idleInTransactionTimeoutMs === undefined
      ? undefined
      : `idle_in_transaction_session_timeout=${options.idleInTransactionTimeoutMs}`,
    options.lockTimeoutMs === undefined ? undefined : `lock_timeout=${options.lockTimeoutMs}`,
  ]
    .filter((setting) => setting !== undefined)
    .map((setting) => `-c ${setting}`)
    .join(" ");

/** How long opening a connection may take, in the pools and for a session client. */
export const CONNECTION_TIMEOUT_MS = 5_000;

export const createPool = (options: PoolOptions): pg.Pool => {
  const settings = serverSettings(options);
  const pool = new pg.Pool({
    ...(settings === ""
      ? { connectionString: options.connectionString }
      : withServerSetting(options.connectionString, settings)),
    max: options.max ?? 10,
    application_name: options.applicationName ?? "debt-collection",
    ...(options.driverTypeParsers === true ? {} : { types: typeParsers }),
    // A client that cannot get a connection fails fast rather than queueing forever.
    connectionTimeoutMillis: CONNECTION_TIMEOUT_MS,
    idleTimeoutMillis: options.idleTimeoutMillis ?? 30_000,
  });
  // Without a listener, an idle connection terminated by the server (a PostgreSQL
  // restart) would crash the process; the pool already discards the client.
  pool.on("error", options.onIdleConnectionError ?? (() => {}));
  // The pool listens only to idle clients. A checked-out client whose server
  // session ends between two queries (inside a transaction, say) emits `error`
  // with no listener, which would crash the process too. Its user learns of it
  // from its next query, which fails; the pool then discards the client.
  const open = new Set<pg.PoolClient>();
  pool.on("connect", (client) => {
    client.on("error", () => {});
    open.add(client);
    client.once("end", () => open.delete(client));
  });
  // pg-pool's `end()` resolves once its clients are asked to close, not once they are
  // closed. Ours waits for every connection to end, so that whatever follows a stop (the
  // embedded cluster's own stop, the process's exit) never cuts a connection still open.
  const endPool = pool.end.bind(pool) as () => Promise<void>;
  pool.end = (async () => {
    await endPool();
    await Promise.all([...open].map((client) => new Promise((resolve) => client.once("end", resolve))));
  }) as pg.Pool["end"];
  return pool;
};

/** A connection outside every pool, held for as long as its session is needed (a `listen`). */
export type SessionClient = pg.Client;

/**
 * A connection of its own for a session that must last, such as one that
 * listens for notifications: the pools' connection timeout, and TCP
 * keep-alive so that a peer gone silently is noticed. Not connected yet;
 * its owner connects it, handles its `error` and `end`, and ends it.
 */
export const createSessionClient = (connectionString: string, applicationName: string): SessionClient =>
  new pg.Client({
    connectionString,
    application_name: applicationName,
    connectionTimeoutMillis: CONNECTION_TIMEOUT_MS,
    keepAlive: true,
  });

/**
 * A Kysely instance over a new pool, which runs PREPARED-marked SQL as named
 * prepared statements (prepared-statements.ts). `db.destroy()` ends the pool.
 */
export const createDatabase = (options: PoolOptions): Kysely<Database> =>
  new Kysely<Database>({ dialect: new PostgresDialect({ pool: preparingPool(createPool(options)) }) });

/** Replaces the database name of a PostgreSQL connection string. */
export const withDatabaseName = (url: string, database: string): string => {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
};
