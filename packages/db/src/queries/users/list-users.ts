/** A page of a company's users, oldest first, with their total; never a credential. */
import type { Db } from "../executor.ts";
import type { Keyset } from "../keyset.ts";
import { pageOfRows, type PageRequest } from "../page-of-rows.ts";

/** Oldest first: `(company_id, id)` serves a page after a key. */
export const userOrder: Keyset = [{ column: "id", direction: "asc", kind: "integer" }];

export const listUsers = (db: Db, companyId: number, page: PageRequest) =>
  pageOfRows(
    db,
    db.selectFrom("users").where("company_id", "=", companyId),
    (users) => users.select(["id", "email", "name", "role", "created_at", "disabled_at"]),
    userOrder,
    page,
  );
