/** GET /company/users: the company's users, oldest first; never a credential. */
import type { Endpoints } from "@dc/contract";
import { listUsers, userOrder } from "@dc/db";
import type { HandlerOf } from "../../http/handler.ts";
import { listWalk } from "../../http/list-walk.ts";
import { presentUser } from "../../presenters/present-user.ts";

export const listCompanyUsers: HandlerOf<Endpoints["listCompanyUsers"]> = async ({ query, principal, services }) => {
  const walk = listWalk(services, { companyId: principal.companyId, list: "users", filters: {}, keyset: userOrder }, query);
  const page = await listUsers(services.db, principal.companyId, walk.request);
  return {
    body: {
      error: false,
      data: page.rows.map((row) => presentUser(services.ids, row)),
      pagination: walk.pagination(page),
    },
  };
};
