/** The webhook endpoint columns every endpoint operation reads: never a secret. */
import type { Selectable } from "kysely";
import type { WebhookEndpointsTable } from "../../../schema.ts";

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

export type EndpointRow = Pick<Selectable<WebhookEndpointsTable>, (typeof endpointColumns)[number]>;
