/** Creates a company with the starting balance of 100 credits. */
import type { Db } from "../executor.ts";

export const insertCompany = (
  db: Db,
  company: { readonly name: string; readonly email?: string | undefined; readonly phone?: string | undefined },
) =>
  db
    .insertInto("companies")
    .values({ name: company.name, email: company.email ?? null, phone: company.phone ?? null, current_credits: 100 })
    .returning(["id", "name", "email", "phone", "created_at"])
    .executeTakeFirstOrThrow();
