/**
 * Direct inserts of tenant rows for HTTP tests (debts, debtors, followups,
 * plans, requests, detections), so a test does not depend on the operations
 * that create them. Ids are internal keys; `ids` encodes them for the wire.
 */
import type { Database } from "@dc/db";
import type { Insertable, Kysely } from "kysely";
import type { CreatedTenant } from "../../src/admin/tenants.ts";
import type { DomainIds as Ids } from "@dc/db";

type Row<T extends keyof Database> = Partial<Insertable<Database[T]>>;

export const collectionRows = (db: Kysely<Database>, ids: Ids) => {
  const key = (kind: "company" | "creditor" | "timeline", id: string): number => {
    const decoded = ids.decode(kind, id);
    if (decoded === undefined) throw new Error(`not a ${kind} id: ${id}`);
    return decoded;
  };
  const companyOf = (tenant: CreatedTenant) => key("company", tenant.company_id);

  const debt = async (tenant: CreatedTenant, fields: Row<"debts"> = {}): Promise<number> =>
    (
      await db
        .insertInto("debts")
        .values({
          company_id: companyOf(tenant),
          creditor_id: key("creditor", tenant.creditor_id),
          amount_minor: 10_000,
          balance_minor: 10_000,
          currency: "EUR",
          amount_text: "100.00",
          ...fields,
        })
        .returning("id")
        .executeTakeFirstOrThrow()
    ).id;

  const debtor = async (tenant: CreatedTenant, fields: Row<"debtors"> = {}): Promise<number> =>
    (
      await db
        .insertInto("debtors")
        .values({ company_id: companyOf(tenant), ...fields })
        .returning("id")
        .executeTakeFirstOrThrow()
    ).id;

  const followup = async (tenant: CreatedTenant, debtId: number, fields: Row<"followups"> = {}): Promise<number> =>
    (
      await db
        .insertInto("followups")
        .values({ company_id: companyOf(tenant), debt_id: debtId, type: "email", ...fields })
        .returning("id")
        .executeTakeFirstOrThrow()
    ).id;

  const paymentPlan = async (
    tenant: CreatedTenant,
    debtId: number,
    plan: Row<"payment_plans">,
    installments: ReadonlyArray<{ payment_date: string; status: "pending" | "paid" | "cancelled" }>,
  ): Promise<number> => {
    const company_id = companyOf(tenant);
    const { id } = await db
      .insertInto("payment_plans")
      .values({ company_id, debt_id: debtId, status: "active", source: "api", ...plan })
      .returning("id")
      .executeTakeFirstOrThrow();
    if (installments.length > 0) {
      await db
        .insertInto("installments")
        .values(
          installments.map((installment, position) => ({
            company_id,
            payment_plan_id: id,
            position,
            amount_minor: 1_000,
            ...installment,
          })),
        )
        .execute();
    }
    return id;
  };

  const debtorRequest = async (
    tenant: CreatedTenant,
    debtId: number,
    fields: Row<"debtor_requests"> & Pick<Insertable<Database["debtor_requests"]>, "type">,
  ) =>
    (
      await db
        .insertInto("debtor_requests")
        .values({ company_id: companyOf(tenant), debt_id: debtId, ...fields })
        .returning("id")
        .executeTakeFirstOrThrow()
    ).id;

  const aiDetection = async (
    tenant: CreatedTenant,
    debtId: number,
    fields: Row<"ai_detections"> & Pick<Insertable<Database["ai_detections"]>, "type">,
  ) =>
    (
      await db
        .insertInto("ai_detections")
        .values({ company_id: companyOf(tenant), debt_id: debtId, ...fields })
        .returning("id")
        .executeTakeFirstOrThrow()
    ).id;

  return { companyOf, debt, debtor, followup, paymentPlan, debtorRequest, aiDetection };
};
