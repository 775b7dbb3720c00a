/**
 * A transaction a test keeps open, to show what another session does
 * meanwhile: `work` runs in it, then it waits until `release` is called,
 * runs `afterRelease` (e.g. a replay going on to its next row) and commits.
 */
import type { Kysely } from "kysely";
import type { Database } from "@dc/db";

export interface HeldTransaction {
  /** Lets the transaction go on; settles when it has committed (or failed). */
  readonly release: () => Promise<void>;
}

/** Resolves once `work` has run inside the open transaction; rejects if it failed. */
export const holdTransaction = async (
  db: Kysely<Database>,
  work: (trx: Kysely<Database>) => Promise<unknown>,
  afterRelease?: (trx: Kysely<Database>) => Promise<unknown>,
): Promise<HeldTransaction> => {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let ran: () => void = () => {};
  const held = new Promise<void>((resolve) => (ran = resolve));
  const transaction = db.transaction().execute(async (trx) => {
    await work(trx);
    ran();
    await released;
    await afterRelease?.(trx);
  });
  await Promise.race([held, transaction]);
  return {
    release: () => {
      release();
      return transaction;
    },
  };
};
