/** Records a debt import (`POST /debts/batch`) before its debts, which name it; the summary follows. */
import type { DbTransaction } from "../executor.ts";

export const insertImportBatch = async (
  trx: DbTransaction,
  batch: { readonly id: string; readonly companyId: number; readonly batchName: string | null; readonly now: Date },
): Promise<void> => {
  await trx
    .insertInto("import_batches")
    .values({ id: batch.id, company_id: batch.companyId, batch_name: batch.batchName, created_at: batch.now })
    .execute();
};
