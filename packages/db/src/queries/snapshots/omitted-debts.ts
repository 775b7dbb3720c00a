/**
 * The debts of a campaign that no row of a snapshot names (contract 4.3
 * rule 1: an active one is paid off), read in bounded batches through a
 * cursor of the applying transaction. The rows' identities come from the
 * arrays stored with each chunk, so no row leaves the database; two hash
 * anti-joins (one per identity kind) find the omitted debts whatever the
 * snapshot's size. PostgreSQL's cursors are insensitive: the batches are
 * the debts as they stood when the cursor opened, whatever the apply
 * writes meanwhile.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../../schema.ts";
import { textArray } from "../array-literals.ts";
import type { CampaignScope } from "./load-current-debts.ts";

const CURSOR = "snapshot_omitted_debts";

/**
 * Opens the cursor over the ids (ascending) of the campaign's debts in one
 * of `statuses` that no stored row of the snapshot names: a row whose
 * `internal_id` is set names the debt with that `internal_id`; a row
 * without one names the debt with its `invoice_reference`. Call once per
 * transaction; read with `fetchOmittedDebtIds`.
 */
export const openOmittedDebts = async (
  trx: Kysely<Database>,
  scope: CampaignScope & { readonly snapshotId: number },
  statuses: ReadonlyArray<string>,
): Promise<void> => {
  await sql`
    declare ${sql.raw(CURSOR)} no scroll cursor for
    with row_identities as materialized (
      -- Both arrays unnested in step in the select list: no join, so nothing for the disabled nested loops to
      -- price out of reach (a priced-out plan costs enough to be compiled by JIT, hundreds of milliseconds).
      select unnest(c.internal_ids) as internal_id, unnest(c.invoice_references) as invoice_reference
      from snapshot_chunks c
      where c.company_id = ${scope.companyId} and c.snapshot_id = ${scope.snapshotId}
    )
    select d.id from debts d
    where d.company_id = ${scope.companyId} and d.campaign_id = ${scope.campaignId}
      and d.status = any(${textArray(statuses)}::text[])
      and not exists (select from row_identities r where r.internal_id = d.internal_id)
      and not exists (
        select from row_identities r where r.internal_id is null and r.invoice_reference = d.invoice_reference
      )
    order by d.id
  `.execute(trx);
};

/** The next `limit` ids of the open cursor; fewer than `limit` means it is done. */
export const fetchOmittedDebtIds = async (trx: Kysely<Database>, limit: number): Promise<Array<number>> => {
  const { rows } = await sql<{ id: number }>`fetch forward ${sql.raw(String(Math.trunc(limit)))} from ${sql.raw(CURSOR)}`.execute(
    trx,
  );
  return rows.map((row) => row.id);
};

/** Closes the cursor (a transaction's end closes it too). */
export const closeOmittedDebts = async (trx: Kysely<Database>): Promise<void> => {
  await sql`close ${sql.raw(CURSOR)}`.execute(trx);
};
