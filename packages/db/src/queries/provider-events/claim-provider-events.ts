/**
 * The next batch of a company's unprocessed provider events, oldest first,
 * after `afterId` (a run walks its backlog once: an event that cannot be
 * applied yet is left for a later run), locked so that two runs never apply
 * the same event.
 */
import { sql } from "kysely";
import type { DbTransaction } from "../executor.ts";

export interface PendingProviderEvent {
  readonly id: number;
  readonly provider: "twilio" | "retell" | "lob";
  readonly event_key: string;
  readonly payload: unknown;
  readonly received_at: Date;
}

export const claimProviderEvents = async (
  trx: DbTransaction,
  companyId: number,
  afterId: number,
  limit: number,
): Promise<ReadonlyArray<PendingProviderEvent>> => {
  const { rows } = await sql<PendingProviderEvent>`
    select id, provider, event_key, payload, received_at
    from provider_events
    where company_id = ${companyId}::int8 and processed_at is null and id > ${afterId}::int8
    order by id
    limit ${limit}::int
    for update skip locked
  `.execute(trx);
  return rows;
};
