/** A webhook endpoint's wire form (never its secret) and the lookups every endpoint operation shares. */
import { webhookMessages, type WebhookEndpoint, type WebhookEventType } from "@dc/contract";
import type { Database } from "@dc/db";
import type { Kysely, Selectable } from "kysely";
import { NotFound } from "../../http/api-error.ts";
import type { Ids } from "../../ids.ts";

export const endpointColumns = [
  "id",
  "company_id",
  "url",
  "description",
  "event_types",
  "enabled",
  "ordered",
  "disabled_reason",
  "disabled_at",
  "previous_secret_expires_at",
  "created_at",
  "updated_at",
] as const;

export type EndpointRow = Pick<Selectable<Database["webhook_endpoints"]>, (typeof endpointColumns)[number]>;

export const presentEndpoint = (ids: Ids, row: EndpointRow, now: Date): WebhookEndpoint => ({
  id: ids.encode("webhook_endpoint", row.id),
  url: row.url,
  description: row.description,
  event_types: row.event_types as WebhookEventType[],
  enabled: row.enabled,
  ordered: row.ordered,
  disabled_reason: row.disabled_reason,
  disabled_at: row.disabled_at,
  // An overlap that has ended is no longer news: the previous secret no longer signs.
  previous_secret_expires_at:
    row.previous_secret_expires_at !== null && row.previous_secret_expires_at > now ? row.previous_secret_expires_at : null,
  created_at: row.created_at,
  updated_at: row.updated_at,
});

/** The internal id of a company's endpoint from its public id, or a 404. */
export const endpointIdOf = (ids: Ids, publicId: string): number => {
  const id = ids.decode("webhook_endpoint", publicId);
  if (id === undefined) throw new NotFound({ message: webhookMessages.endpointNotFound });
  return id;
};

/** The endpoint `id` of `companyId` (locked for update when `forUpdate`), or a 404. */
export const findEndpoint = async (
  db: Kysely<Database>,
  companyId: number,
  id: number,
  options: { readonly forUpdate?: boolean } = {},
): Promise<EndpointRow> => {
  let query = db.selectFrom("webhook_endpoints").select(endpointColumns).where("company_id", "=", companyId).where("id", "=", id);
  if (options.forUpdate === true) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  if (row === undefined) throw new NotFound({ message: webhookMessages.endpointNotFound });
  return row;
};
