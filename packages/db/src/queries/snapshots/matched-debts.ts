/**
 * The campaign's debts that a snapshot's rows name, read once per
 * application and kept for its transaction (docs/decisions/0691): every
 * debt whose `internal_id` or `invoice_reference` a stored row carries,
 * tagged with the chunk of that row, with the installments of its active
 * plan, in two temporary tables dropped at commit. Each chunk's batch then
 * reads its own (`loadChunkDebts`).
 *
 * One pass of hash joins (the stored identities against the campaign, the
 * matched debts against the company's active plans) is linear whatever the
 * statistics say. A lookup per key would not be: statistics that know
 * nothing of a new tenant price every index of the company at one row, and
 * PostgreSQL then scans the company's debts once per key, the ones this
 * transaction inserted included, which is quadratic. The tables are
 * analyzed after they are filled, so each chunk's read is planned on exact
 * figures. The debts are read before any batch writes: the state the
 * snapshot is planned against (no row names a debt another row creates,
 * Snapshot.checkAcrossRows).
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../../schema.ts";
import { canonicalInstantSql } from "./canonical-instant.ts";
import {
  type CampaignDebts,
  type CampaignScope,
  campaignDebtsOf,
  type DebtColumns,
  debtRowsOf,
  type InstallmentRow,
  plansByDebt,
} from "./load-current-debts.ts";
import { withWholeCampaignJoins } from "./load-snapshot.ts";

/**
 * Fills the application's tables of matched debts for the snapshot's stored
 * rows. Call once, inside the applying transaction, before any write.
 */
export const stageMatchedDebts = async (
  trx: Kysely<Database>,
  { companyId, campaignId, snapshotId }: CampaignScope & { readonly snapshotId: number },
): Promise<void> => {
  const byKey = (column: "internal_id" | "invoice_reference") => sql`
    select k.chunk_index, d.id, d.internal_id, d.invoice_reference, d.balance_minor, d.currency, d.status,
      d.firstname, d.lastname, d.email, d.phone
    from row_keys k join debts d on d.${sql.ref(column)} = k.${sql.ref(column)}
    where d.company_id = ${companyId} and d.campaign_id = ${campaignId}`;
  await withWholeCampaignJoins(trx, async () => {
    await sql`
      create temporary table snapshot_matched_debts on commit drop as
      with row_keys as materialized (
        -- Both arrays unnested in step in the select list: no join for the disabled nested loops to price out.
        select c.chunk_index, unnest(c.internal_ids) as internal_id, unnest(c.invoice_references) as invoice_reference
        from snapshot_chunks c
        where c.company_id = ${companyId} and c.snapshot_id = ${snapshotId}
      )
      ${byKey("internal_id")}
      union
      ${byKey("invoice_reference")}
    `.execute(trx);
    await sql`
      create temporary table snapshot_matched_installments on commit drop as
      select m.chunk_index, p.debt_id, p.external_reference as plan_reference, i.external_reference, i.amount_minor,
        i.payment_date, i.status, ${canonicalInstantSql(sql`i.paid_at`)} as paid_at, i.external_payment_id, i.position
      from snapshot_matched_debts m
      join payment_plans p on p.debt_id = m.id
      left join installments i on i.company_id = p.company_id and i.payment_plan_id = p.id
      where p.company_id = ${companyId} and p.status = 'active'
    `.execute(trx);
  });
  await sql`create index on snapshot_matched_debts (chunk_index)`.execute(trx);
  await sql`create index on snapshot_matched_installments (chunk_index)`.execute(trx);
  await sql`analyze snapshot_matched_debts, snapshot_matched_installments`.execute(trx);
};

/** The staged debts that the rows of chunk `chunkIndex` name, with their active plans. */
export const loadChunkDebts = async (trx: Kysely<Database>, chunkIndex: number): Promise<CampaignDebts> => {
  // One JSON array per column: PostgreSQL builds them fastest, and V8 parses arrays of primitives fastest.
  const { rows } = await sql<{ columns: DebtColumns; installments: ReadonlyArray<InstallmentRow> | null }>`
    select
      (select json_build_array(json_agg(id), json_agg(internal_id), json_agg(invoice_reference),
          json_agg(balance_minor), json_agg(currency), json_agg(status), json_agg(firstname), json_agg(lastname),
          json_agg(email), json_agg(phone))
        from (select * from snapshot_matched_debts where chunk_index = ${chunkIndex} order by id) chunk_debts
      ) as columns,
      (select json_agg(json_build_object(
          'debt_id', debt_id, 'plan_reference', plan_reference, 'external_reference', external_reference,
          'amount_minor', amount_minor, 'payment_date', payment_date, 'status', status, 'paid_at', paid_at,
          'external_payment_id', external_payment_id
        ) order by debt_id, position)
        from snapshot_matched_installments where chunk_index = ${chunkIndex}
      ) as installments
  `.execute(trx);
  return campaignDebtsOf(debtRowsOf(rows[0]?.columns), plansByDebt(rows[0]?.installments ?? []));
};
