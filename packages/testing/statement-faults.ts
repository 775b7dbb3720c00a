/**
 * Makes one statement of a process under test fail on purpose, to prove what
 * it does with a failure it did not expect, wherever in its work it happens.
 *
 * While a fault is armed, every query node-postgres is asked to run on a
 * connection whose `application_name` is one of the armed names (the api's
 * pools, the worker's) is counted; the `failAt`-th is not sent to PostgreSQL
 * at all and fails with the armed error instead, as a lost connection or a
 * bug in a query would. Other connections (the test's own) are never
 * counted. Import this module before the code under test connects: a pool
 * connection captures `query` when it connects.
 */
import pg from "pg";

interface Armed {
  readonly failAt: number;
  readonly error: () => Error;
  readonly applicationNames: ReadonlySet<string>;
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
  if (armed === undefined || name === undefined || !armed.applicationNames.has(name)) return original.apply(this, args);
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
  /** The statements counted (the failed one included). */
  readonly issued: number;
  /** The text of the statement made to fail, or undefined when the request ran fewer than `failAt` statements. */
  readonly failed: string | undefined;
}

/** Arms a fault: the `failAt`-th statement from now on a connection named in `applicationNames` fails with `error()`. */
export const armFault = (failAt: number, error: () => Error, applicationNames: ReadonlySet<string>): void => {
  armed = { failAt, error, applicationNames };
  issued = 0;
  failed = undefined;
};

/**
 * Disarms the fault once the armed connections have been quiet for `quietMs`
 * (a request may run a statement after its answer is sent), and says what happened.
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
