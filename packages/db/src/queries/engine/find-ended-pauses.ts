/**
 * Paused enrollments whose pause has ended on their company's clock
 * (`paused_until` reached), for the sweep to resume: live companies on the
 * injected clock through `enrollments_timed_pause_idx` (across companies by
 * design), or one sandbox company on its own clock.
 */
import { sql } from "kysely";
import type { Db } from "../executor.ts";
import type { ClaimScope } from "./claim-due-followups.ts";

export interface EndedPause {
  readonly companyId: number;
  readonly debtId: number;
}

export const findEndedPauses = async (db: Db, scope: ClaimScope, limit: number): Promise<ReadonlyArray<EndedPause>> => {
  const { rows } =
    scope.kind === "live"
      ? await sql<{ company_id: number; debt_id: number }>`
          select e.company_id, e.debt_id
          from enrollments e
          join companies c on c.id = e.company_id and not c.sandbox
          where e.state = 'paused' and e.paused_until is not null and e.paused_until <= ${scope.now.toISOString()}::timestamptz
          order by e.paused_until
          limit ${limit}`.execute(db)
      : await sql<{ company_id: number; debt_id: number }>`
          select e.company_id, e.debt_id
          from companies c
          join enrollments e on e.company_id = c.id
          where c.id = ${scope.companyId} and c.sandbox
            and e.state = 'paused' and e.paused_until is not null and e.paused_until <= c.sandbox_now
          order by e.paused_until
          limit ${limit}`.execute(db);
  return rows.map((row) => ({ companyId: row.company_id, debtId: row.debt_id }));
};
