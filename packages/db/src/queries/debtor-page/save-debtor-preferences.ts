/**
 * The contact preferences a debtor set on the debtor page
 * (docs/decisions/0674), replacing the previous ones in one statement: the
 * refused channels become `channel_opt_outs` rows of source `debtor_page`
 * (opt-outs of another source, set by the company, stay), and the quiet
 * hours a `debtor_preferences` row (none: the row goes).
 */
import { sql } from "kysely";
import { textArray } from "../array-literals.ts";
import type { DbTransaction } from "../executor.ts";

export const DEBTOR_PAGE_SOURCE = "debtor_page";

export interface DebtorPreferences {
  readonly companyId: number;
  readonly debtId: number;
  readonly refusedChannels: ReadonlyArray<string>;
  readonly quietHours: { readonly start: string; readonly end: string } | null;
  readonly now: Date;
}

export const saveDebtorPreferences = async (trx: DbTransaction, preferences: DebtorPreferences): Promise<void> => {
  const { companyId, debtId, refusedChannels, quietHours } = preferences;
  const now = preferences.now.toISOString();
  await sql`
    with removed as (
      delete from channel_opt_outs
      where company_id = ${companyId} and debt_id = ${debtId} and source = ${DEBTOR_PAGE_SOURCE}
        and channel <> all (${textArray(refusedChannels)}::text[])
    ), added as (
      insert into channel_opt_outs (company_id, debt_id, channel, source, created_at)
      select ${companyId}, ${debtId}, channel, ${DEBTOR_PAGE_SOURCE}, ${now}::timestamptz
      from unnest(${textArray(refusedChannels)}::text[]) as channel
      on conflict (company_id, debt_id, channel) do nothing
    ), cleared as (
      delete from debtor_preferences
      where company_id = ${companyId} and debt_id = ${debtId} and ${quietHours === null}
    )
    insert into debtor_preferences (company_id, debt_id, quiet_start, quiet_end, updated_at)
    select ${companyId}, ${debtId}, ${quietHours?.start ?? "00:00"}, ${quietHours?.end ?? "00:00"}, ${now}::timestamptz
    where ${quietHours !== null}
    on conflict (company_id, debt_id) do update set
      quiet_start = excluded.quiet_start, quiet_end = excluded.quiet_end, updated_at = excluded.updated_at
  `.execute(trx);
};
