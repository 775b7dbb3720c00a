/**
 * The `data` of a batch response from the outcomes of its entries: created,
 * failed and skipped entries in index order, and the summary counts
 * (docs/decisions/0107).
 */
import type { BatchResult } from "@dc/contract";
import { Money } from "@dc/domain";
import type { DomainIds as Ids } from "@dc/db";
import type { Outcome } from "./prepare-debts.ts";
import type { Written } from "./write-debts.ts";

export const batchResult = (
  ids: Ids,
  batch: { readonly importId: string; readonly batchName: string | null; readonly total: number },
  outcomes: ReadonlyArray<Outcome>,
  written: ReadonlyArray<Written>,
): BatchResult => {
  // An entry a concurrent request beat to its internal_id is a duplicate like any other.
  const lostRace = new Set(written.filter((item) => !item.inserted).map((item) => item.entry.index));
  const created = written.filter((item) => item.inserted);
  const failed = outcomes.filter((outcome) => outcome.kind === "failed");
  const skipped = outcomes.filter(
    (outcome) => outcome.kind === "skipped" || (outcome.kind === "valid" && lostRace.has(outcome.index)),
  );
  const emailValidation = { valid: 0, invalid: 0, unverifiable: 0, charged: 0 };
  for (const { entry } of created) {
    emailValidation[entry.emailValidation.status] += 1;
    if (entry.emailValidation.charged) emailValidation.charged += 1;
  }
  return {
    import_id: batch.importId,
    batch_name: batch.batchName,
    created: created.map(({ entry, debtId }) => ({
      index: entry.index,
      temp_id: entry.tempId,
      debt_id: ids.encode("debt", debtId),
      status: "valid" as const,
      data: {
        firstname: entry.row.firstname,
        lastname: entry.row.lastname,
        phone: entry.row.phone,
        email: entry.row.email,
        amount: Money.fromMinor(entry.row.amount_minor, entry.row.currency),
        currency: entry.row.currency,
      },
    })),
    failed: failed.map((outcome) => ({
      index: outcome.index,
      temp_id: outcome.tempId,
      status: "error" as const,
      errors: Object.entries(outcome.details).map(([property, message]) => ({ property, message })),
    })),
    skipped: skipped.map((outcome) =>
      outcome.kind === "skipped"
        ? {
            index: outcome.index,
            temp_id: outcome.tempId,
            status: "skipped" as const,
            reason: outcome.reason,
            internal_id: outcome.internalId,
            existing_debt_id: outcome.existingDebtId === null ? null : ids.encode("debt", outcome.existingDebtId),
            duplicate_of_index: outcome.duplicateOfIndex,
          }
        : {
            index: outcome.index,
            temp_id: outcome.tempId,
            status: "skipped" as const,
            reason: "duplicate_internal_id" as const,
            internal_id: outcome.kind === "valid" ? (outcome.row.internal_id ?? "") : "",
            existing_debt_id: null,
            duplicate_of_index: null,
          },
    ),
    summary: {
      total: batch.total,
      created: created.length,
      failed: failed.length,
      skipped: skipped.length,
      valid: created.length + skipped.length,
      error: failed.length,
      email_validation: emailValidation,
    },
  };
};
