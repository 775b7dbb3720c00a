/**
 * A company's webhook endpoint, or undefined. With `forUpdate`, its row is
 * locked until the transaction ends: the writes to an endpoint (update,
 * delete, replays) take it first, so they apply one after the other.
 */
import type { Db } from "../../executor.ts";
import { type EndpointRow, endpointColumns } from "./endpoint-columns.ts";

export const findEndpoint = (
  db: Db,
  companyId: number,
  endpointId: number,
  options: { readonly forUpdate?: boolean } = {},
): Promise<EndpointRow | undefined> => {
  let query = db
    .selectFrom("webhook_endpoints")
    .select(endpointColumns)
    .where("company_id", "=", companyId)
    .where("id", "=", endpointId);
  if (options.forUpdate === true) query = query.forUpdate();
  return query.executeTakeFirst();
};
