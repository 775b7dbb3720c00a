/**
 * Counts a click on a tracked link of a followup's e-mail, in one
 * statement: `email_click_count` rises, and a person's click is kept in
 * `email_clicks`, where a later payment of the debt finds it
 * (`markTriggeringFollowups`). An automated fetch (a link scanner such as
 * Microsoft Safe Links) counts once per followup at most and is not kept:
 * it triggers no payment (docs/decisions/0656).
 */
import { sql } from "kysely";
import type { Db } from "../executor.ts";
import type { EmailFetch } from "./record-email-open.ts";

/** True when the click was counted. */
export const recordEmailClick = async (db: Db, click: EmailFetch): Promise<boolean> => {
  const at = click.at.toISOString();
  const { rows } = await sql<{ counted: boolean }>`
    with counted as (
      update followups
      set email_click_count = email_click_count + 1,
        email_automated_click = email_automated_click or ${click.automated}, updated_at = ${at}::timestamptz
      where company_id = ${click.companyId} and id = ${click.followupId} and type = 'email'
        and not (${click.automated} and email_automated_click)
      returning company_id, id, debt_id
    ), kept as (
      insert into email_clicks (company_id, followup_id, debt_id, clicked_at)
      select company_id, id, debt_id, ${at}::timestamptz from counted where not ${click.automated}
      on conflict do nothing
    )
    select exists (select from counted) as counted
  `.execute(db);
  return rows[0]?.counted === true;
};
