/**
 * Acknowledgements by the provider's message id within the company: a send
 * whose answer was lost is matched to a message found at the provider only
 * if no other send of the company holds that message
 * (`findClaimedProviderMessages`, docs/decisions/0630).
 */
import { type Kysely, sql } from "kysely";

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
    create index provider_acknowledgements_message_idx
      on provider_acknowledgements (company_id, provider_message_id)
  `.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`drop index if exists provider_acknowledgements_message_idx`.execute(db);
};
