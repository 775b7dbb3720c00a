/**
 * Shared by the tests of the statement-level reference checks (migrations
 * 0010 and 0011): the id a statement returns, the SQLSTATE a statement
 * fails with, and whether an open writer blocks a delete of what it names.
 */
import { type Kysely, sql } from "kysely";
import { createDatabase } from "../../src/connection.ts";
import type { Database } from "../../src/schema.ts";
import { holdTransaction } from "../../../testing/held-transaction.ts";

/** The `id` of the first row `query` returns. */
export const returnedId = async (db: Kysely<Database>, query: ReturnType<typeof sql<{ id: number }>>): Promise<number> => {
  const { rows } = await query.execute(db);
  if (rows[0] === undefined) throw new Error("nothing returned");
  return Number(rows[0].id);
};

/** The SQLSTATE `promise` rejects with, or "no error". */
export const sqlState = (promise: Promise<unknown>): Promise<string | undefined> =>
  promise.then(
    () => "no error",
    (error: unknown) => (error as { code?: string }).code,
  );

/**
 * Runs `write` in a transaction left open, then `remove` in another with a
 * 300 ms lock timeout; resolves to the SQLSTATE `remove` ended with
 * ("55P03" when the writer's locks blocked it), after the writer commits.
 */
export const stateOfRemovalDuringWrite = async (
  url: string,
  write: (trx: Kysely<Database>) => Promise<unknown>,
  remove: (trx: Kysely<Database>) => Promise<unknown>,
): Promise<string | undefined> => {
  const writer = createDatabase({ connectionString: url, max: 1 });
  const remover = createDatabase({ connectionString: url, max: 1 });
  try {
    const held = await holdTransaction(writer, write);
    const state = await sqlState(
      remover.transaction().execute(async (trx) => {
        await sql`set local lock_timeout = '300ms'`.execute(trx);
        await remove(trx);
      }),
    );
    await held.release();
    return state;
  } finally {
    await writer.destroy();
    await remover.destroy();
  }
};
