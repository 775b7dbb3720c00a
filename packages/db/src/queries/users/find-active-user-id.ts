/** A company's user that is not disabled (its id), or undefined. */
import type { Db } from "../executor.ts";

export const findActiveUserId = async (db: Db, companyId: number, userId: number): Promise<number | undefined> =>
  (
    await db
      .selectFrom("users")
      .select("id")
      .where("id", "=", userId)
      .where("company_id", "=", companyId)
      .where("disabled_at", "is", null)
      .executeTakeFirst()
  )?.id;
