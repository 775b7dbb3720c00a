/**
 * All-time counts of a company's debts and followups, in one statement
 * (bigint counts, as the driver returns them), or undefined when there is
 * no such company.
 */
import type { Db } from "../executor.ts";

export const countCompanyRecords = (db: Db, companyId: number) =>
  db
    .selectFrom("companies as c")
    .select((eb) => [
      eb
        .selectFrom("debts")
        .select((sub) => sub.fn.countAll<number>().as("n"))
        .where("debts.company_id", "=", companyId)
        .as("debts"),
      eb
        .selectFrom("followups")
        .select((sub) => sub.fn.countAll<number>().as("n"))
        .where("followups.company_id", "=", companyId)
        .as("followups"),
    ])
    .where("c.id", "=", companyId)
    .executeTakeFirst();
