/**
 * The connection factory shared by the api, the worker, the CLI and the tests.
 */
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import type { Database } from "./schema.ts";

const INT8_OID = 20;
const DATE_OID = 1082;

/**
 * Type parsers for this project's pools only (never the process-wide pg
 * defaults): `bigint` ids and minor-unit amounts fit a JS number exactly
 * below 2^53, which the domain checks before writing; dates stay `YYYY-MM-DD`.
 */
const typeParsers: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    if (oid === INT8_OID) return (value: string) => Number(value);
    if (oid === DATE_OID) return (value: string) => value;
    return pg.types.getTypeParser(oid, format);
  }) as pg.CustomTypesConfig["getTypeParser"],
};

export interface PoolOptions {
  readonly connectionString: string;
  readonly max?: number;
  readonly applicationName?: string;
  /** Told about idle connections the server closed (restart, failover); the pool replaces them. */
  readonly onIdleConnectionError?: (error: Error) => void;
}

export const createPool = (options: PoolOptions): pg.Pool => {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 10,
    application_name: options.applicationName ?? "debt-collection",
    types: typeParsers,
    // A client that cannot get a connection fails fast rather than queueing forever.
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  // Without a listener, an idle connection terminated by the server (a PostgreSQL
  // restart) would crash the process; the pool already discards the client.
  pool.on("error", options.onIdleConnectionError ?? (() => {}));
  // The pool listens only to idle clients. A checked-out client whose server
  // session ends between two queries (inside a transaction, say) emits `error`
  // with no listener, which would crash the process too. Its user learns of it
  // from its next query, which fails; the pool then discards the client.
  pool.on("connect", (client) => client.on("error", () => {}));
  return pool;
};

/** A Kysely instance over a new pool. `db.destroy()` ends the pool. */
export const createDatabase = (options: PoolOptions): Kysely<Database> =>
  new Kysely<Database>({ dialect: new PostgresDialect({ pool: createPool(options) }) });

/** Replaces the database name of a PostgreSQL connection string. */
export const withDatabaseName = (url: string, database: string): string => {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
};
