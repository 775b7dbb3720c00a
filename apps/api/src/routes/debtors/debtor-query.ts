/**
 * The debtor rows both debtor operations read, each with the ids of its
 * debts aggregated in the same statement, and their wire form.
 */
import type { Endpoints } from "@dc/contract";
import type { Database } from "@dc/db";
import { type Kysely, sql } from "kysely";
import type { Ids } from "../../ids.ts";

export type DebtorView = Endpoints["getDebtor"]["success"]["schema"]["Type"]["data"];

/** The company's debtors, nothing selected yet: what `GET /debtors` counts. */
export const companyDebtors = (db: Kysely<Database>, companyId: number) =>
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

/** The company's debtors (optionally one), with `debt_keys` ordered oldest first. */
export const debtorsOf = (db: Kysely<Database>, companyId: number) =>
  withDebtorFields(companyDebtors(db, companyId), companyId);

type DebtorRow = Awaited<ReturnType<ReturnType<typeof debtorsOf>["execute"]>>[number];

export const presentDebtor = (ids: Ids, row: DebtorRow): DebtorView => {
  const { id, debt_keys, ...fields } = row;
  const keys = (debt_keys ?? []).map(Number);
  return {
    id: ids.encode("debtor", id),
    ...fields,
    debt_ids: keys.map((key) => ids.encode("debt", key)),
    debts_count: keys.length,
  };
};
