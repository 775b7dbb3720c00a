/**
 * Which of a provider's message ids already belong to a send of the
 * company: held by a followup or recorded as an acknowledgement. A message
 * found by searching the provider for a send whose answer was lost must not
 * be one of these, or two followups would claim one message. One statement
 * on the `(company_id, provider_message_id)` index of followups and the
 * acknowledgements of the company.
 */
import { sql } from "kysely";
import { textArray } from "../array-literals.ts";
import type { Db } from "../executor.ts";

export const findClaimedProviderMessages = async (
  db: Db,
  companyId: number,
  providerMessageIds: ReadonlyArray<string>,
): Promise<ReadonlySet<string>> => {
  if (providerMessageIds.length === 0) return new Set();
  const ids = textArray([...new Set(providerMessageIds)]);
  const { rows } = await sql<{ provider_message_id: string }>`
    select provider_message_id from followups
    where company_id = ${companyId}::int8 and provider_message_id = any(${ids}::text[])
    union
    select provider_message_id from provider_acknowledgements
    where company_id = ${companyId}::int8 and provider_message_id = any(${ids}::text[])
  `.execute(db);
  return new Set(rows.map((row) => row.provider_message_id));
};
