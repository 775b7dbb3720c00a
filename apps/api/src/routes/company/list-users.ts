/** GET /company/users: the company's users, oldest first; never a credential. */
import { type Endpoints, paginationOf } from "@dc/contract";
import type { HandlerOf } from "../../http/handler.ts";

export const listCompanyUsers: HandlerOf<Endpoints["listCompanyUsers"]> = async ({ query, principal, services }) => {
  const users = services.db.selectFrom("users").where("company_id", "=", principal.companyId);
  const [count, rows] = await Promise.all([
    users.select((eb) => eb.fn.countAll<number>().as("total")).executeTakeFirstOrThrow(),
    users
      .select(["id", "email", "name", "role", "created_at", "disabled_at"])
      .orderBy("id")
      .limit(query.limit)
      .offset((query.page - 1) * query.limit)
      .execute(),
  ]);
  return {
    body: {
      error: false,
      data: rows.map((user) => ({ ...user, id: services.ids.encode("user", user.id) })),
      pagination: paginationOf(query, Number(count.total)),
    },
  };
};
