/**
 * A request a debtor made on the debtor page (docs/decisions/0673): a plan
 * proposal, a dispute or a hardship declaration, `suggested` and `blocking`,
 * so the compliance guard holds the debt's enrollment until the company
 * reviews it (docs/decisions/0602). A dispute's attachment is stored with it,
 * in the caller's transaction (docs/decisions/0674).
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
  /** A dispute's file, its type already checked against its content (DisputeAttachment). */
  readonly attachment?: NewAttachment | undefined;
}

export interface NewAttachment {
  readonly name: string;
  readonly contentType: string;
  readonly body: Buffer;
}

/** The key of a request's attachment among the company's stored objects. */
export const attachmentKey = (debtorRequestId: number): string => `debtor-request-${debtorRequestId}`;

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
  const { attachment } = request;
  if (attachment !== undefined) {
    await trx
      .insertInto("stored_objects")
      .values({
        company_id: request.companyId,
        key: attachmentKey(row.id),
        debtor_request_id: row.id,
        file_name: attachment.name,
        content_type: attachment.contentType,
        body: attachment.body,
      })
      .execute();
  }
  return row.id;
};
