/** Creates a creditor with a name and optional contact fields (the admin CLI's). */
import type { Db } from "../executor.ts";

export const insertNamedCreditor = (
  db: Db,
  creditor: {
    readonly companyId: number;
    readonly name: string;
    readonly email?: string | undefined;
    readonly phone?: string | undefined;
    readonly country?: string | undefined;
  },
) =>
  db
    .insertInto("creditors")
    .values({
      company_id: creditor.companyId,
      name: creditor.name,
      email: creditor.email ?? null,
      phone: creditor.phone ?? null,
      country: creditor.country ?? null,
    })
    .returning(["id", "name"])
    .executeTakeFirstOrThrow();
