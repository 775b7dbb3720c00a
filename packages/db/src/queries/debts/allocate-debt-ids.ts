/** Debt ids reserved ahead of an insert, so the caller knows each row's id before writing it. */
import { sql } from "kysely";
import type { Db } from "../executor.ts";

/** Reserves `count` debt ids in one round trip (the identity sequence; gaps are harmless). */
export const allocateDebtIds = async (db: Db, count: number): Promise<number[]> => {
  if (count === 0) return [];
  const { rows } = await sql<{ id: number }>`
    select nextval(pg_get_serial_sequence('debts', 'id')) as id from generate_series(1, ${count})
  `.execute(db);
  return rows.map((row) => Number(row.id));
};
