/** The debtor's wire form (contract): encrypted ids, and its debts' ids and count. */
import type { Endpoints } from "@dc/contract";
import type { DebtorRow } from "@dc/db";
import type { DomainIds as Ids } from "@dc/db";

export type DebtorView = Endpoints["getDebtor"]["success"]["schema"]["Type"]["data"];

export const presentDebtor = (ids: Ids, row: DebtorRow): DebtorView => {
  const { id, debt_keys, ...fields } = row;
  const keys = (debt_keys ?? []).map(Number);
  return {
    id: ids.encode("debtor", id),
    ...fields,
    debt_ids: keys.map((key) => ids.encode("debt", key)),
    debts_count: keys.length,
  };
};
