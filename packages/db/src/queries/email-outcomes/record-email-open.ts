/**
 * Counts an open of a followup's e-mail (its pixel was fetched), in one
 * statement: `email_open_count` rises, `email_first_opened_at` keeps the
 * first. An automated fetch (an image proxy, Apple Mail Privacy
 * Protection) counts once per followup at most (docs/decisions/0656):
 * later ones change nothing. Only e-mail followups are counted.
 */
import { sql } from "kysely";
import type { Db } from "../executor.ts";

export interface EmailFetch {
  readonly companyId: number;
  readonly followupId: number;
  readonly at: Date;
  /** Made by a known prefetcher rather than a person. */
  readonly automated: boolean;
}

/** True when the open was counted. */
export const recordEmailOpen = async (db: Db, open: EmailFetch): Promise<boolean> => {
  const at = open.at.toISOString();
  const { rows } = await sql<{ id: number }>`
    update followups
    set email_open_count = email_open_count + 1,
      email_first_opened_at = coalesce(email_first_opened_at, ${at}::timestamptz),
      email_automated_open = email_automated_open or ${open.automated}, updated_at = ${at}::timestamptz
    where company_id = ${open.companyId} and id = ${open.followupId} and type = 'email'
      and not (${open.automated} and email_automated_open)
    returning id
  `.execute(db);
  return rows.length > 0;
};
