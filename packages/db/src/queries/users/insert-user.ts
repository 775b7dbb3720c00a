/** Creates a user of a company with an already hashed password. */
import type { Db } from "../executor.ts";

export const insertUser = (
  db: Db,
  user: {
    readonly companyId: number;
    readonly email: string;
    readonly passwordHash: string;
    readonly role: "admin" | "member";
  },
) =>
  db
    .insertInto("users")
    .values({ company_id: user.companyId, email: user.email, password_hash: user.passwordHash, role: user.role })
    .returning(["id", "email", "role"])
    .executeTakeFirstOrThrow();
