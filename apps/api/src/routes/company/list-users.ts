/** GET /company/users: the company's users, oldest first; never a credential. */
import { type Endpoints, paginationOf } from "@dc/contract";
import { listUsers } from "@dc/db";
import type { HandlerOf } from "../../http/handler.ts";
import { presentUser } from "../../presenters/present-user.ts";

export const listCompanyUsers: HandlerOf<Endpoints["listCompanyUsers"]> = async ({ query, principal, services }) => {
  const { rows, total } = await listUsers(services.db, principal.companyId, query);
  return {
    body: {
      error: false,
      data: rows.map((row) => presentUser(services.ids, row)),
      pagination: paginationOf(query, total),
    },
  };
};
