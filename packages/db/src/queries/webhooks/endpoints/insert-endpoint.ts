/** Inserts a webhook endpoint (its secret already sealed) and returns it, without the secret. */
import type { NewWebhookEndpoint } from "../../../schema.ts";
import type { DbTransaction } from "../../executor.ts";
import { type EndpointRow, endpointColumns } from "./endpoint-columns.ts";

export const insertEndpoint = (trx: DbTransaction, endpoint: NewWebhookEndpoint): Promise<EndpointRow> =>
  trx.insertInto("webhook_endpoints").values(endpoint).returning(endpointColumns).executeTakeFirstOrThrow();
