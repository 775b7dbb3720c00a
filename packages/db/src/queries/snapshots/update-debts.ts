/**
 * Every change a snapshot makes to existing debts (balance changes, status
 * changes, settlements of omitted debts, refreshed contact fields) in one
 * `update ... from unnest(...)` (one array parameter per column,
 * array-literals.ts): each debt's final values are computed by the caller,
 * and only debts that change are sent, so an identical snapshot writes
 * nothing (and `updated_at` stays put). The update is optimistic: each debt
 * must still hold the balance and status the plan was computed from, or
 * nothing is kept (see `ConcurrentDebtChange`).
 *
 * Each change finds its debt by primary key, whatever the statistics say
 * of the campaign (docs/decisions/0692): the company and the campaign
 * travel as columns of the changes, so PostgreSQL estimates no restriction
 * of `debts` from statistics that may predate the campaign, and the
 * statement runs under `KEY_PROBES`, which leaves one probe of the primary
 * key per change as the cheapest plan.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../../schema.ts";
import { integerArray, textArray } from "../array-literals.ts";
import { KEY_PROBES, withPlannerSettings } from "../planner-settings.ts";

/**
 * A debt changed (a payment recorded by the api, a deletion) between the
 * read the plan was computed from and the update. Roll back and plan again.
 */
export class ConcurrentDebtChange extends Error {
  readonly _tag = "ConcurrentDebtChange";
}

/**
 * The final balance and status of one changed debt, what it held when the
 * plan was computed, and each contact field the snapshot changes (`null`
 * keeps the debt's value: a snapshot never clears a contact field, and a
 * contact change made through the api meanwhile is not written over).
 */
export interface DebtChange {
  readonly id: number;
  readonly expectedBalanceMinor: number;
  readonly expectedStatus: string;
  readonly balanceMinor: number;
  readonly status: string;
  readonly firstname: string | null;
  readonly lastname: string | null;
  readonly email: string | null;
  readonly phone: string | null;
}

/**
 * Writes `changes` to the campaign's debts. Throws `ConcurrentDebtChange`
 * when a debt is gone or no longer holds its expected balance and status,
 * so the caller's transaction rolls back instead of overwriting that change
 * with a plan computed before it.
 */
export const updateSnapshotDebts = async (
  trx: Kysely<Database>,
  scope: { readonly companyId: number; readonly campaignId: number; readonly now: Date },
  changes: ReadonlyArray<DebtChange>,
): Promise<void> => {
  if (changes.length === 0) return;
  const column = <K extends keyof DebtChange>(key: K) => changes.map((change) => change[key]);
  const scopeColumn = (value: number) => integerArray(changes.map(() => value));
  const update = sql`
    update debts d set
      balance_minor = v.balance_minor, status = v.status,
      firstname = coalesce(v.firstname, d.firstname), lastname = coalesce(v.lastname, d.lastname),
      email = coalesce(v.email, d.email), phone = coalesce(v.phone, d.phone),
      updated_at = ${scope.now.toISOString()}::timestamptz
    from unnest(${scopeColumn(scope.companyId)}::int8[], ${scopeColumn(scope.campaignId)}::int8[],
      ${integerArray(column("id"))}::int8[], ${integerArray(column("expectedBalanceMinor"))}::int8[],
      ${textArray(column("expectedStatus"))}::text[], ${integerArray(column("balanceMinor"))}::int8[],
      ${textArray(column("status"))}::text[], ${textArray(column("firstname"))}::text[],
      ${textArray(column("lastname"))}::text[], ${textArray(column("email"))}::text[],
      ${textArray(column("phone"))}::text[])
      as v(company_id, campaign_id, id, expected_balance_minor, expected_status, balance_minor, status, firstname,
        lastname, email, phone)
    where d.company_id = v.company_id and d.campaign_id = v.campaign_id and d.id = v.id
      and d.balance_minor = v.expected_balance_minor and d.status = v.expected_status
  `;
  const result = await withPlannerSettings(trx, KEY_PROBES, (probing) => update.execute(probing));
  const updated = Number(result.numAffectedRows ?? 0n);
  if (updated !== changes.length) {
    throw new ConcurrentDebtChange(
      `${changes.length - updated} of ${changes.length} debts changed since the snapshot was planned`,
    );
  }
};
