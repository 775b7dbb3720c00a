/** Writes a todo's review: its final status, when, and the company's note. */
import type { Review } from "@dc/domain";
import type { DbTransaction } from "../executor.ts";
import type { TodoKey } from "./todo-rows.ts";

export interface ReviewWrite {
  readonly status: Review.Reviewed;
  readonly note: string | null;
  /** The injected clock's time. */
  readonly at: Date;
}

/** Records the review of the locked todo `key`; only a `suggested` item changes. Returns whether it did. */
export const recordReview = async (
  trx: DbTransaction,
  companyId: number,
  key: TodoKey,
  review: ReviewWrite,
): Promise<boolean> => {
  const values = { review_status: review.status, review_note: review.note, reviewed_at: review.at };
  const result =
    key.source === "debtor_request"
      ? await trx
          .updateTable("debtor_requests")
          .set(values)
          .where("company_id", "=", companyId)
          .where("id", "=", key.id)
          .where("review_status", "=", "suggested")
          .executeTakeFirst()
      : await trx
          .updateTable("ai_detections")
          .set(values)
          .where("company_id", "=", companyId)
          .where("id", "=", key.id)
          .where("review_status", "=", "suggested")
          .executeTakeFirst();
  return result.numUpdatedRows === 1n;
};
