/** Deletes a company's webhook endpoint; its deliveries and their attempts go with it (foreign keys). */
import type { DbTransaction } from "../../executor.ts";

export const deleteEndpoint = async (trx: DbTransaction, companyId: number, endpointId: number): Promise<void> => {
  await trx.deleteFrom("webhook_endpoints").where("company_id", "=", companyId).where("id", "=", endpointId).execute();
};
