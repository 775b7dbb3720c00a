/** Whether a company's debt has an active payment plan, and which. */
import type { Db } from "../executor.ts";

/** The id of the active plan of `debtId`, or undefined. */
export const findActivePlanId = async (db: Db, companyId: number, debtId: number): Promise<number | undefined> =>
  (
    await db
      .selectFrom("payment_plans")
      .select("id")
      .where("company_id", "=", companyId)
      .where("debt_id", "=", debtId)
      .where("status", "=", "active")
      .executeTakeFirst()
  )?.id;
