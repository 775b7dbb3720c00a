/**
 * A request a debtor made on the debtor page (docs/decisions/0673): a plan
 * proposal, a dispute or a hardship declaration, `suggested` and `blocking`,
 * so the compliance guard holds the debt's enrollment until the company
 * reviews it (docs/decisions/0602).
 */
import type { DbTransaction } from "../executor.ts";

export interface NewDebtorRequest {
  readonly companyId: number;
  readonly debtId: number;
  readonly type: "portal_dispute" | "hardship" | "payment_plan";
  /** The debtor's free text, or null. */
  readonly message: string | null;
  /** What the page recorded beside it: the proposed schedule, the dispute's reason. */
  readonly content: Readonly<Record<string, unknown>>;
  readonly now: Date;
}

/** Inserts the request; returns its id. */
export const insertDebtorRequest = async (trx: DbTransaction, request: NewDebtorRequest): Promise<number> => {
  const row = await trx
    .insertInto("debtor_requests")
    .values({
      company_id: request.companyId,
      debt_id: request.debtId,
      type: request.type,
      message: request.message,
      content: JSON.stringify(request.content),
      review_status: "suggested",
      blocking: true,
      created_at: request.now,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return row.id;
};
