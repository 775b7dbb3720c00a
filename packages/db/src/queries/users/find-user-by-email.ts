/**
 * The user signing in with `email` (compared with the stored address in
 * lower case: the caller lower-cases `email`), with its password hash, or
 * undefined.
 */
import type { Db } from "../executor.ts";

export const findUserByEmail = (db: Db, email: string) =>
  db
    .selectFrom("users")
    .select(["id", "company_id", "email", "password_hash", "disabled_at"])
    .where((eb) => eb(eb.fn<string>("lower", ["email"]), "=", email))
    .executeTakeFirst();
