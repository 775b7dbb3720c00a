/** Whether the database answers: `select 1`, throwing when it does not. */
import { sql } from "kysely";
import type { Db } from "../executor.ts";

export const pingDatabase = async (db: Db): Promise<void> => {
  await sql`select 1`.execute(db);
};
