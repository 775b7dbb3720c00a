/**
 * A company's followups by their providers' message ids (a call id, a
 * message SID, a letter id), with what applying an event needs: status,
 * debt, and the engine columns. One statement on the
 * `(company_id, provider_message_id)` index.
 */
import { sql } from "kysely";
import { textArray } from "../array-literals.ts";
import type { DbTransaction } from "../executor.ts";

export interface ProviderFollowup {
  readonly id: number;
  readonly debt_id: number;
  readonly status: string;
  readonly type: string;
  readonly provider_message_id: string;
}

export const findFollowupsByProviderMessage = async (
  trx: DbTransaction,
  companyId: number,
  providerMessageIds: ReadonlyArray<string>,
): Promise<ReadonlyArray<ProviderFollowup>> => {
  if (providerMessageIds.length === 0) return [];
  const { rows } = await sql<ProviderFollowup>`
    select id, debt_id, status, type, provider_message_id
    from followups
    where company_id = ${companyId}::int8 and provider_message_id = any(${textArray([...new Set(providerMessageIds)])}::text[])
  `.execute(trx);
  return rows;
};
