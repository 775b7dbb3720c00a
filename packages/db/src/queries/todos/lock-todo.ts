/**
 * Reads one todo of a company for its review and locks it `for update`
 * until the transaction ends, so two reviews of the same item run one after
 * the other and the second sees the first's status.
 */
import type { Review } from "@dc/domain";
import type { DbTransaction } from "../executor.ts";
import type { TodoKey } from "./todo-rows.ts";

export interface LockedTodo {
  readonly debt_id: number;
  readonly type: Review.Type;
  readonly review_status: Review.Status;
  readonly blocking: boolean;
  /** A debtor request's `content`; null for an AI detection. */
  readonly content: unknown;
}

/** The todo `key` of `companyId`, locked; undefined when the company has none. */
export const lockTodo = async (
  trx: DbTransaction,
  companyId: number,
  key: TodoKey,
): Promise<LockedTodo | undefined> => {
  if (key.source === "debtor_request") {
    return trx
      .selectFrom("debtor_requests")
      .select(["debt_id", "type", "review_status", "blocking", "content"])
      .where("company_id", "=", companyId)
      .where("id", "=", key.id)
      .forUpdate()
      .executeTakeFirst();
  }
  const row = await trx
    .selectFrom("ai_detections")
    .select(["debt_id", "type", "review_status", "blocking"])
    .where("company_id", "=", companyId)
    .where("id", "=", key.id)
    .forUpdate()
    .executeTakeFirst();
  return row === undefined ? undefined : { ...row, content: null };
};
