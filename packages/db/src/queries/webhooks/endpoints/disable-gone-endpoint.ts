/** Disables a company's enabled endpoint whose receiver answered 410 Gone (`disabled_reason` `gone`). */
import type { Db } from "../../executor.ts";

export const disableGoneEndpoint = async (db: Db, companyId: number, endpointId: number, now: Date): Promise<void> => {
  await db
    .updateTable("webhook_endpoints")
    .set({ enabled: false, disabled_reason: "gone", disabled_at: now, updated_at: now })
    .where("company_id", "=", companyId)
    .where("id", "=", endpointId)
    .where("enabled", "=", true)
    .execute();
};
