/** Administration of companies and their users (the dashboard's job; the CLI's for now). */
import { type Db, insertCompany, insertUser } from "@dc/db";
import { hashPassword } from "../oauth/secrets.ts";

export interface NewCompany {
  readonly name: string;
  readonly email?: string | undefined;
  readonly phone?: string | undefined;
  /** A sandbox company's clock starts at this instant (docs/decisions/0621); a live company has none. */
  readonly sandboxNow?: Date | undefined;
}

export const createCompany = async (db: Db, company: NewCompany) => insertCompany(db, company);

export interface NewUser {
  readonly companyId: number;
  readonly email: string;
  readonly password: string;
  readonly role: "admin" | "member";
}

export const createUser = async (db: Db, user: NewUser) =>
  insertUser(db, {
    companyId: user.companyId,
    email: user.email,
    passwordHash: await hashPassword(user.password),
    role: user.role,
  });
