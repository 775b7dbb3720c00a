/** Sets columns of a company's webhook endpoint (it must exist) and returns it, without its secret. */
import type { WebhookEndpointUpdate } from "../../../schema.ts";
import type { DbTransaction } from "../../executor.ts";
import { type EndpointRow, endpointColumns } from "./endpoint-columns.ts";

export const updateEndpoint = (
  trx: DbTransaction,
  companyId: number,
  endpointId: number,
  changes: WebhookEndpointUpdate,
): Promise<EndpointRow> =>
  trx
    .updateTable("webhook_endpoints")
    .set(changes)
    .where("company_id", "=", companyId)
    .where("id", "=", endpointId)
    .returning(endpointColumns)
    .executeTakeFirstOrThrow();
