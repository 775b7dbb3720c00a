/**
 * What the query functions run on, named so that their callers (route
 * handlers, worker tasks) need not import Kysely: a pool or a transaction
 * (`Db`), or an open transaction only (`DbTransaction`).
 */
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../schema.ts";

/** The pool or a transaction of it: a query that may run either way takes this. */
export type Db = Kysely<Database>;

/** An open transaction: a query that must not run on its own takes this. */
export type DbTransaction = Transaction<Database>;
