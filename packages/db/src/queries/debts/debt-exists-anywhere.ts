/**
 * Whether a debt id exists in any company: the one lookup across companies,
 * for `POST /followups`, which answers 403 for another company's debt and
 * 404 for no debt at all (docs/decisions/0150; a tenant-statement exception).
 */
import type { Db } from "../executor.ts";

export const debtExistsAnywhere = async (db: Db, debtId: number): Promise<boolean> =>
  (await db.selectFrom("debts").select("id").where("id", "=", debtId).executeTakeFirst()) !== undefined;
