/**
 * The debts of a campaign that no row of a snapshot names (contract 4.3
 * rule 1: an active one is paid off), read in bounded batches through a
 * cursor of the applying transaction, with what settling them needs: the
 * columns the update compares and whether an active plan is to be
 * cancelled (not the plan itself). The rows' identities come from the
 * arrays stored with each chunk, so no row leaves the database; hash
 * joins (0363) find the omitted debts and their plans whatever the
 * snapshot's size and the statistics. PostgreSQL's cursors are
 * insensitive: the batches are the debts as they stood when the cursor
 * opened, whatever the apply writes meanwhile.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../../schema.ts";
import { textArray } from "../array-literals.ts";
import type { PaymentPlan } from "@dc/domain";
import { type CampaignDebts, type CampaignScope, campaignDebtsOf, type DebtRow } from "./load-current-debts.ts";
import { withWholeCampaignJoins } from "./load-snapshot.ts";

const CURSOR = "snapshot_omitted_debts";

/**
 * Opens the cursor over the campaign's debts (in id order) in one of
 * `statuses` that no stored row of the snapshot names: a row whose
 * `internal_id` is set names the debt with that `internal_id`; a row
 * without one names the debt with its `invoice_reference`. Call once per
 * transaction; read with `fetchOmittedDebts`.
 */
export const openOmittedDebts = async (
  trx: Kysely<Database>,
  scope: CampaignScope & { readonly snapshotId: number },
  statuses: ReadonlyArray<string>,
): Promise<void> => {
  // A cursor's plan is fixed when it is declared: the setting covers every fetch.
  await withWholeCampaignJoins(trx, async () => {
    await sql`
      declare ${sql.raw(CURSOR)} no scroll cursor for
      with row_identities as materialized (
        -- Both arrays unnested in step in the select list: no join, so nothing for the disabled nested loops to
        -- price out of reach (a priced-out plan costs enough to be compiled by JIT, hundreds of milliseconds).
        select unnest(c.internal_ids) as internal_id, unnest(c.invoice_references) as invoice_reference
        from snapshot_chunks c
        where c.company_id = ${scope.companyId} and c.snapshot_id = ${scope.snapshotId}
      ), active_plans as (
        select p.debt_id from payment_plans p where p.company_id = ${scope.companyId} and p.status = 'active'
      )
      select d.id, d.internal_id, d.invoice_reference, d.balance_minor, d.currency, d.status, d.firstname, d.lastname,
        d.email, d.phone, a.debt_id is not null as has_active_plan
      from debts d
      left join active_plans a on a.debt_id = d.id
      where d.company_id = ${scope.companyId} and d.campaign_id = ${scope.campaignId}
        and d.status = any(${textArray(statuses)}::text[])
        and not exists (select from row_identities r where r.internal_id = d.internal_id)
        and not exists (
          select from row_identities r where r.internal_id is null and r.invoice_reference = d.invoice_reference
        )
      order by d.id
    `.execute(trx);
  });
};

interface OmittedDebtRow extends DebtRow {
  readonly has_active_plan: boolean;
}

/** What settling reads of an active plan: that there is one (its reference and installments are not read). */
const activePlanStandIn: PaymentPlan.LocalPlan = { externalReference: "", installments: [] };

/**
 * The next `limit` debts of the open cursor; fewer than `limit` means it is
 * done. A debt with an active plan carries an empty stand-in for it:
 * settling reads only whether there is one.
 */
export const fetchOmittedDebts = async (trx: Kysely<Database>, limit: number): Promise<CampaignDebts> => {
  const { rows } =
    await sql<OmittedDebtRow>`fetch forward ${sql.raw(String(Math.trunc(limit)))} from ${sql.raw(CURSOR)}`.execute(trx);
  return campaignDebtsOf(
    rows,
    new Map(rows.filter((row) => row.has_active_plan).map((row) => [row.id, activePlanStandIn])),
  );
};

/** Closes the cursor (a transaction's end closes it too). */
export const closeOmittedDebts = async (trx: Kysely<Database>): Promise<void> => {
  await sql`close ${sql.raw(CURSOR)}`.execute(trx);
};
