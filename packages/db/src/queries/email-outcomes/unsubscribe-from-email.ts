/**
 * Opts the debtor of a followup out of e-mail (the unsubscribe link and
 * RFC 8058 one-click, docs/decisions/0657): one `channel_opt_outs` row of
 * source `unsubscribe` for the followup's debt, which the compliance guard
 * obeys before every later e-mail step. Idempotent: an existing opt-out of
 * any source is kept as it is.
 */
import { sql } from "kysely";
import type { Db } from "../executor.ts";

/** Whether the followup exists (false: nothing was written). */
export const unsubscribeFromEmail = async (
  db: Db,
  email: { readonly companyId: number; readonly followupId: number },
  now: Date,
): Promise<boolean> => {
  const { rows } = await sql<{ found: boolean }>`
    with followup as (
      select company_id, debt_id from followups where company_id = ${email.companyId} and id = ${email.followupId}
    ), opted as (
      insert into channel_opt_outs (company_id, debt_id, channel, source, created_at)
      select company_id, debt_id, 'email', 'unsubscribe', ${now.toISOString()}::timestamptz from followup
      on conflict (company_id, debt_id, channel) do nothing
    )
    select exists (select from followup) as found
  `.execute(db);
  return rows[0]?.found === true;
};

/** Whether the followup an unsubscribe link names still exists: the page offers the button only then. */
export const emailFollowupExists = async (
  db: Db,
  email: { readonly companyId: number; readonly followupId: number },
): Promise<boolean> => {
  const { rows } = await sql<{ found: boolean }>`
    select exists (select from followups where company_id = ${email.companyId} and id = ${email.followupId}) as found
  `.execute(db);
  return rows[0]?.found === true;
};
