/**
 * Named prepared statements for the few hot statements whose planning costs
 * more than their execution (docs/decisions/0016): SQL that begins with
 * `PREPARED` runs through node-postgres's public query config
 * (`{ name, text, values }`), so PostgreSQL parses and plans it once per
 * connection instead of on every call. `preparingPool` hands Kysely a pool
 * whose clients do that; every other statement goes to pg unchanged.
 */
import { createHash } from "node:crypto";
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from "kysely";
import pg from "pg";
import { isCachedPlanInvalid } from "./sqlstate.ts";

/** The comment that marks SQL to run as a named prepared statement. The marked texts are a small fixed set. */
export const PREPARED = "/* prepared */ ";

const baseNames = new Map<string, string>();

/** The statement's name, the same for a text in every process. */
const baseName = (text: string): string => {
  let name = baseNames.get(text);
  if (name === undefined) {
    name = `dc_${createHash("sha256").update(text).digest("base64url").slice(0, 24)}`;
    // The marked texts are few; the bound only guards against a caller that builds them from data.
    if (baseNames.size < 10_000) baseNames.set(text, name);
  }
  return name;
};

type Values = ReadonlyArray<unknown>;

/**
 * One connection's client as Kysely uses it. A marked statement runs under
 * its name; when PostgreSQL refuses the prepared form because its result
 * type changed, the connection deallocates that name and prepares the text
 * again under a new one (pg remembers which names it has prepared on a
 * connection and would otherwise reuse the stale one).
 */
class PreparingClient implements PostgresPoolClient {
  /** The name each marked text is prepared under on this connection, once renamed. */
  readonly #renamed = new Map<string, string>();
  #renames = 0;

  readonly client: pg.PoolClient;

  constructor(client: pg.PoolClient) {
    this.client = client;
  }

  /** The backend's pid, which Kysely reads to cancel a query (0: unknown, Kysely then asks the server). */
  get processID(): number {
    return (this.client as { processID?: number | null }).processID ?? 0;
  }

  query<R>(text: string, values: Values): Promise<PostgresQueryResult<R>>;
  query(cursor: never): never;
  query<R>(textOrCursor: string, values?: Values): Promise<PostgresQueryResult<R>> {
    const client = this.client;
    if (typeof textOrCursor !== "string") return client.query(textOrCursor as never) as never;
    const list = values as unknown[];
    if (!textOrCursor.startsWith(PREPARED)) return client.query<R & pg.QueryResultRow>(textOrCursor, list) as never;
    const name = this.#renamed.get(textOrCursor) ?? baseName(textOrCursor);
    return (client.query<R & pg.QueryResultRow>({ name, text: textOrCursor, values: list }) as Promise<never>).catch(
      async (error: unknown) => {
        if (!isCachedPlanInvalid(error)) throw error;
        const next = `${baseName(textOrCursor)}_${++this.#renames}`;
        this.#renamed.set(textOrCursor, next);
        await client.query(`deallocate "${name}"`).catch(() => {});
        return client.query<R & pg.QueryResultRow>({ name: next, text: textOrCursor, values: list }) as never;
      },
    );
  }

  release(destroy?: boolean): void {
    this.client.release(destroy);
  }
}

/**
 * `pool` as Kysely's `PostgresDialect` takes it, with clients that run
 * PREPARED-marked SQL as named prepared statements. Kysely keeps one
 * connection object per client, so each pg client gets one wrapper for life.
 */
export const preparingPool = (pool: pg.Pool): PostgresPool => {
  const clients = new WeakMap<pg.PoolClient, PreparingClient>();
  return {
    Client: pg.Client,
    options: pool.options,
    connect: async () => {
      const client = await pool.connect();
      let wrapped = clients.get(client);
      if (wrapped === undefined) clients.set(client, (wrapped = new PreparingClient(client)));
      return wrapped;
    },
    end: () => pool.end(),
  };
};
