/**
 * Records that a provider acknowledged a send (docs/decisions/0617). Written
 * on its own, right after the acknowledgement, not batched: the record
 * exists to close the window between the provider's answer and the engine's
 * outcome commit, so it must not wait for the rest of a batch. A second
 * record of the same key keeps the first.
 */
import type { Db } from "../executor.ts";

export interface AcknowledgementRecord {
  readonly companyId: number;
  readonly idempotencyKey: string;
  readonly followupId: number;
  readonly channel: string;
  readonly providerMessageId: string;
  readonly response: string | null;
}

export const recordAcknowledgement = async (db: Db, record: AcknowledgementRecord): Promise<void> => {
  await db
    .insertInto("provider_acknowledgements")
    .values({
      company_id: record.companyId,
      idempotency_key: record.idempotencyKey,
      followup_id: record.followupId,
      channel: record.channel,
      provider_message_id: record.providerMessageId,
      response: record.response,
    })
    .onConflict((conflict) => conflict.columns(["company_id", "idempotency_key"]).doNothing())
    .execute();
};
