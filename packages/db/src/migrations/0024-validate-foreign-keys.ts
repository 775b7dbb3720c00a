/**
 * Validates the foreign keys 0023 added `not valid`, in a transaction of
 * its own: `validate constraint` reads the child's rows under SHARE UPDATE
 * EXCLUSIVE on the child and ROW SHARE on the parent, so reads and writes
 * of both go on while it runs (docs/operations.md, Upgrades). The rows were
 * written under the reference checks 0023 replaced, so none fails.
 */
import { type Kysely, sql } from "kysely";
import { constraintName, foreignKeys } from "./0023-foreign-keys.ts";

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`${sql.raw(
    foreignKeys.map((key) => `alter table ${key.child} validate constraint ${constraintName(key)};`).join("\n"),
  )}`.execute(db);
};

/** A validated key is the same constraint as a `not valid` one whose rows all hold: nothing to undo. */
export const down = async (): Promise<void> => {};
