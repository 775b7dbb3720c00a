/** A company's credit balance, subscription and creation time (a monthly period's start), or undefined. */
import type { Db } from "../executor.ts";

export const findCompanyCredits = (db: Db, companyId: number) =>
  db
    .selectFrom("companies")
    .select(["current_credits", "subscription_plan", "subscription_status", "subscription_expires_at", "created_at"])
    .where("id", "=", companyId)
    .executeTakeFirst();
