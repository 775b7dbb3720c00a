/**
 * Makes one statement of the api fail on purpose, to prove what the api does
 * with a failure it did not expect, wherever in a request it happens.
 *
 * Every query node-postgres is asked to run on one of the api's own
 * connections (its two pools, told apart by `application_name`) is counted
 * while a fault is armed; the `failAt`-th is not sent to PostgreSQL at all and
 * fails with the armed error instead, as a lost connection or a bug in a
 * query would. The test's own connections and the api's snapshot-status
 * listener are never counted. Import this module before the api starts: a
 * pool connection captures `query` when it connects.
 */
import pg from "pg";

/** The `application_name`s of the api's pools (apps/api/src/server.ts). */
const API_CONNECTIONS: ReadonlySet<string> = new Set(["debt-collection-api", "debt-collection-api-reads"]);

interface Armed {
  readonly failAt: number;
  readonly error: () => Error;
}

let armed: Armed | undefined;
let issued = 0;
let failed: string | undefined;

type Query = (this: pg.Client, ...args: unknown[]) => unknown;
const original = pg.Client.prototype.query as unknown as Query;

const statementText = (first: unknown): string =>
  typeof first === "string" ? first : String((first as { text?: unknown } | null)?.text ?? "(no text)");

(pg.Client.prototype as unknown as { query: Query }).query = function query(this: pg.Client, ...args: unknown[]) {
  const { application_name: name } = (this as unknown as { connectionParameters: { application_name?: string } })
    .connectionParameters;
  if (armed === undefined || name === undefined || !API_CONNECTIONS.has(name)) return original.apply(this, args);
  issued += 1;
  if (issued !== armed.failAt) return original.apply(this, args);
  failed = statementText(args[0]);
  const error = armed.error();
  const callback = args.at(-1);
  if (typeof callback === "function") {
    process.nextTick(callback, error);
    return undefined;
  }
  return Promise.reject(error);
};

/** What happened while a fault was armed. */
export interface FaultOutcome {
  /** The api statements counted (the failed one included). */
  readonly issued: number;
  /** The text of the statement made to fail, or undefined when the request ran fewer than `failAt` statements. */
  readonly failed: string | undefined;
}

/** Arms a fault: the `failAt`-th api statement from now fails with `error()`. */
export const armFault = (failAt: number, error: () => Error): void => {
  armed = { failAt, error };
  issued = 0;
  failed = undefined;
};

/**
 * Disarms the fault once the api has been quiet for `quietMs` (a request may
 * run a statement after its answer is sent), and says what happened.
 */
export const disarmFault = async (quietMs = 40): Promise<FaultOutcome> => {
  for (;;) {
    const before = issued;
    await new Promise((resolve) => setTimeout(resolve, quietMs));
    if (issued === before) break;
  }
  armed = undefined;
  return { issued, failed };
};

/** An error as a bug or an unforeseen condition would raise it: no code, nothing the api could classify. */
export const unexpectedError = (): Error => new Error("injected fault: SECRET-INTERNAL-DETAIL");

/** PostgreSQL's `admin_shutdown` (57P01), as a server restart ends a session: the database is unavailable. */
export const unavailableError = (): Error =>
  Object.assign(new Error("terminating connection due to administrator command (injected)"), {
    code: "57P01",
    severity: "FATAL",
  });
