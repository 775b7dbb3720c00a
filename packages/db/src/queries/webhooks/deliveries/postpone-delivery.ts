/** Moves a company's delivery's next attempt to `runAt` (its job is rescheduled by the caller, in the same transaction). */
import type { Db } from "../../executor.ts";

export const postponeDelivery = async (
  db: Db,
  delivery: { readonly companyId: number; readonly deliveryId: number; readonly runAt: Date; readonly now: Date },
): Promise<void> => {
  await db
    .updateTable("webhook_deliveries")
    .set({ next_attempt_at: delivery.runAt, updated_at: delivery.now })
    .where("company_id", "=", delivery.companyId)
    .where("id", "=", delivery.deliveryId)
    .execute();
};
