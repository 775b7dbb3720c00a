/**
 * What both debtor reads select: a company's debtors with each one's fields
 * and the ids of its debts, aggregated in the same statement, oldest first.
 */
import { sql } from "kysely";
import type { Db } from "../executor.ts";

/** The company's debtors, nothing selected yet: what `GET /debtors` counts. */
export const companyDebtors = (db: Db, companyId: number) =>
  db.selectFrom("debtors as p").where("p.company_id", "=", companyId);

/** Selects each debtor's fields from `debtors`, with `debt_keys` ordered oldest first. */
export const withDebtorFields = (debtors: ReturnType<typeof companyDebtors>, companyId: number) =>
  debtors.select((eb) => [
    "p.id",
    "p.debtor_reference",
    "p.civility",
    "p.firstname",
    "p.lastname",
    "p.email",
    "p.phone",
    "p.birthdate",
    "p.debtor_company",
    "p.address",
    "p.street_address",
    "p.street_number",
    "p.postal_code",
    "p.city",
    "p.country",
    "p.created_at",
    "p.updated_at",
    eb
      .selectFrom("debts as d")
      // int8[] arrives as strings (only scalar int8 has a number parser).
      .select(sql<string[]>`coalesce(array_agg(d.id order by d.id), '{}')`.as("keys"))
      .whereRef("d.debtor_id", "=", "p.id")
      .where("d.company_id", "=", companyId)
      .as("debt_keys"),
  ]);

/** A debtor with the ids of its debts (`debt_keys`, as strings). */
export type DebtorRow = Awaited<ReturnType<ReturnType<typeof withDebtorFields>["execute"]>>[number];
