/**
 * The sandbox provider's memory of a company's sends, by idempotency key:
 * what `lookup` reads after a crash between a send and its outcome's commit.
 * One index probe per key (`sandbox_messages_idempotency_key`).
 */
import type { Db } from "../executor.ts";

export interface StoredSandboxMessage {
  readonly id: number;
  readonly idempotency_key: string;
  readonly channel: string;
  readonly recipient: string;
  readonly subject: string | null;
  readonly body: string;
  readonly outcome: string;
  readonly sent_at: Date;
}

export const findSandboxMessages = (
  db: Db,
  companyId: number,
  idempotencyKeys: ReadonlyArray<string>,
): Promise<ReadonlyArray<StoredSandboxMessage>> =>
  idempotencyKeys.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom("sandbox_messages")
        .select(["id", "idempotency_key", "channel", "recipient", "subject", "body", "outcome", "sent_at"])
        .where("company_id", "=", companyId)
        .where("idempotency_key", "in", idempotencyKeys)
        .execute();
