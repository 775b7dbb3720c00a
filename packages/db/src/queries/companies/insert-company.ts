/**
 * Creates a company with the starting balance of 100 credits. A sandbox
 * company (`sandboxNow` given) runs on its own clock, starting at that instant
 * (docs/decisions/0600, 0621).
 */
import type { Db } from "../executor.ts";

export const insertCompany = (
  db: Db,
  company: {
    readonly name: string;
    readonly email?: string | undefined;
    readonly phone?: string | undefined;
    readonly sandboxNow?: Date | undefined;
  },
) =>
  db
    .insertInto("companies")
    .values({
      name: company.name,
      email: company.email ?? null,
      phone: company.phone ?? null,
      current_credits: 100,
      sandbox: company.sandboxNow !== undefined,
      sandbox_now: company.sandboxNow ?? null,
    })
    .returning(["id", "name", "email", "phone", "sandbox", "sandbox_now", "created_at"])
    .executeTakeFirstOrThrow();
