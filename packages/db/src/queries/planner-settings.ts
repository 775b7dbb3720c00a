/**
 * Planner settings scoped to one statement of a transaction: the
 * statements that must probe an index per row whatever the statistics say
 * (docs/decisions/0692) run under `KEY_PROBES`.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../schema.ts";
import { statementQueue } from "../statement-queue.ts";

/** A planner setting `withPlannerSettings` changes. */
export type PlannerSetting =
  "enable_bitmapscan" | "enable_hashjoin" | "enable_memoize" | "enable_mergejoin" | "enable_nestloop";

/**
 * Runs one statement (`statement`, given the executor to run it on) with
 * planner `settings`, then gives each setting back the value it had,
 * whatever an enclosing scope (`withWholeCampaignJoins`) had set. The
 * statements that save, set and restore are handed to the connection with
 * the statement, without waiting: Kysely runs them in that order, and no
 * statement queued meanwhile (statement-queue.ts) runs between them. The
 * settings are local to a transaction: when `db` is not one, the four
 * statements run in a transaction of their own.
 */
export const withPlannerSettings = async <T>(
  db: Kysely<Database>,
  settings: Readonly<Partial<Record<PlannerSetting, "on" | "off">>>,
  statement: (trx: Kysely<Database>) => Promise<T>,
): Promise<T> => {
  if (!db.isTransaction) return db.transaction().execute((trx) => withPlannerSettings(trx, settings, statement));
  const trx = db;
  const entries = Object.entries(settings) as ReadonlyArray<readonly [PlannerSetting, "on" | "off"]>;
  const saved = (name: PlannerSetting) => `dc.saved_${name}`;
  const each = (setting: (name: PlannerSetting, value: "on" | "off") => ReturnType<typeof sql>) => () =>
    sql`select ${sql.join(entries.map(([name, value]) => setting(name, value)))}`.execute(trx);
  const statements = statementQueue();
  const save = statements.run(
    "save",
    each((name) => sql`set_config(${saved(name)}, current_setting(${name}), true)`),
  );
  const set = statements.run(
    "set",
    each((name, value) => sql`set_config(${name}, ${value}, true)`),
  );
  const running = statements.run("statement", () => statement(trx));
  const restore = statements.run(
    "restore",
    each((name) => sql`set_config(${name}, current_setting(${saved(name)}), true)`),
  );
  try {
    await Promise.all([save, set, running, restore]);
    return await running;
  } catch (error) {
    throw (await statements.firstFailure()) ?? error;
  }
};

/**
 * Nested loops as the only join, each inner side a plain index scan: one
 * probe of an index per outer row, with no bitmap built for a single row
 * and no cache of lookups that never repeat (each key is probed once).
 */
export const KEY_PROBES = {
  enable_nestloop: "on",
  enable_hashjoin: "off",
  enable_mergejoin: "off",
  enable_bitmapscan: "off",
  enable_memoize: "off",
} as const satisfies Readonly<Record<PlannerSetting, "on" | "off">>;
