/** How many webhook endpoints a company has; read after `lockCompany` when checking the limit. */
import type { Db } from "../../executor.ts";

export const countEndpoints = async (db: Db, companyId: number): Promise<number> => {
  const { count } = await db
    .selectFrom("webhook_endpoints")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where("company_id", "=", companyId)
    .executeTakeFirstOrThrow();
  return Number(count);
};
