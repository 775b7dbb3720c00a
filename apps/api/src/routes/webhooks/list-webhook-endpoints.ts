/** GET /webhooks/endpoints: the company's endpoints, oldest first. */
import { type Endpoints, paginationOf } from "@dc/contract";
import type { HandlerOf } from "../../http/handler.ts";
import { endpointColumns, presentEndpoint } from "./endpoint-json.ts";

export const listWebhookEndpoints: HandlerOf<Endpoints["listWebhookEndpoints"]> = async ({ query, principal, services }) => {
  const { db } = services;
  const now = services.clock.now();
  const [count, rows] = await Promise.all([
    db
      .selectFrom("webhook_endpoints")
      .select((eb) => eb.fn.countAll<number>().as("total"))
      .where("company_id", "=", principal.companyId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom("webhook_endpoints")
      .select(endpointColumns)
      .where("company_id", "=", principal.companyId)
      .orderBy("id")
      .limit(query.limit)
      .offset((query.page - 1) * query.limit)
      .execute(),
  ]);
  return {
    body: {
      error: false,
      data: rows.map((row) => presentEndpoint(services.ids, row, now)),
      pagination: paginationOf(query, Number(count.total)),
    },
  };
};
