/** Administration of companies and their users (the dashboard's job; the CLI's for now). */
import type { Database } from "@dc/db";
import type { Kysely } from "kysely";
import { hashPassword } from "../oauth/secrets.ts";

export interface NewCompany {
  readonly name: string;
  readonly email?: string | undefined;
  readonly phone?: string | undefined;
}

export const createCompany = async (db: Kysely<Database>, company: NewCompany) =>
  db
    .insertInto("companies")
    .values({ name: company.name, email: company.email ?? null, phone: company.phone ?? null, current_credits: 100 })
    .returning(["id", "name", "email", "phone", "created_at"])
    .executeTakeFirstOrThrow();

export interface NewUser {
  readonly companyId: number;
  readonly email: string;
  readonly password: string;
  readonly role: "admin" | "member";
}

export const createUser = async (db: Kysely<Database>, user: NewUser) =>
  db
    .insertInto("users")
    .values({
      company_id: user.companyId,
      email: user.email,
      password_hash: await hashPassword(user.password),
      role: user.role,
    })
    .returning(["id", "email", "role"])
    .executeTakeFirstOrThrow();
