/**
 * Channel test fixtures: a company (live, or sandbox on its own clock) with
 * one debt, and followups `in_progress` on it: the rows that an adapter's
 * sends, messages and acknowledgements refer to.
 */
import type { Database } from "@dc/db";
import type { Kysely } from "kysely";

export interface DebtScope {
  readonly companyId: number;
  readonly debtId: number;
}

/** A company with one creditor and one €10.00 debt; `sandboxNow` makes it a sandbox company. */
export const seedDebt = async (
  db: Kysely<Database>,
  options: { readonly name?: string; readonly sandboxNow?: Date } = {},
): Promise<DebtScope> => {
  const sandbox = options.sandboxNow !== undefined;
  const company = await db
    .insertInto("companies")
    .values({ name: options.name ?? (sandbox ? "Sandbox Co" : "Live Co"), sandbox, sandbox_now: options.sandboxNow ?? null })
    .returning("id")
    .executeTakeFirstOrThrow();
  const creditor = await db
    .insertInto("creditors")
    .values({ company_id: company.id, name: "Acme" })
    .returning("id")
    .executeTakeFirstOrThrow();
  const debt = await db
    .insertInto("debts")
    .values({
      company_id: company.id,
      creditor_id: creditor.id,
      amount_minor: 1_000,
      balance_minor: 1_000,
      currency: "EUR",
      amount_text: "10.00",
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return { companyId: company.id, debtId: debt.id };
};

/** `count` e-mail followups `in_progress` on the debt of `scope`, as the engine leaves them before a send. */
export const insertSendingFollowups = async (
  db: Kysely<Database>,
  scope: DebtScope,
  count: number,
  options: { readonly sandbox?: boolean } = {},
): Promise<ReadonlyArray<number>> => {
  const rows = await db
    .insertInto("followups")
    .values(
      Array.from({ length: count }, () => ({
        company_id: scope.companyId,
        debt_id: scope.debtId,
        type: "email",
        status: "in_progress",
        sandbox: options.sandbox ?? false,
      })),
    )
    .returning("id")
    .execute();
  return rows.map((row) => row.id);
};
