/** GET /company/users: the company's users, oldest first; never a credential. */
import type { Endpoints } from "@dc/contract";
import type { HandlerOf } from "../../http/handler.ts";
import { pageOfRows } from "../../http/page-of-rows.ts";

export const listCompanyUsers: HandlerOf<Endpoints["listCompanyUsers"]> = async ({ query, principal, services }) => {
  const { rows, pagination } = await pageOfRows(
    services.db,
    services.db.selectFrom("users").where("company_id", "=", principal.companyId),
    (users) => users.select(["id", "email", "name", "role", "created_at", "disabled_at"]).orderBy("id"),
    query,
  );
  return {
    body: { error: false, data: rows.map((user) => ({ ...user, id: services.ids.encode("user", user.id) })), pagination },
  };
};
