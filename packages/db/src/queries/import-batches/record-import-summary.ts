/** Stores the summary of a company's debt import, as JSON. */
import type { DbTransaction } from "../executor.ts";

export const recordImportSummary = async (
  trx: DbTransaction,
  companyId: number,
  importId: string,
  summary: unknown,
): Promise<void> => {
  await trx
    .updateTable("import_batches")
    .set({ summary: JSON.stringify(summary) })
    .where("id", "=", importId)
    .where("company_id", "=", companyId)
    .execute();
};
