/**
 * POST /webhooks/endpoints/{id}/rotate-secret: a new secret, shown once. The
 * current secret becomes the previous one and keeps signing beside the new
 * one for `overlap_seconds` (default 24 h; 0 stops it at once). Rotating
 * again during an overlap drops the older previous secret (docs/decisions/0451).
 */
import { type Endpoints, webhookMessages } from "@dc/contract";
import { generateWebhookSecret } from "@dc/crypto";
import { lockEndpointSecret, updateEndpoint } from "@dc/db";
import { NotFound } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { webhookSecretBox } from "../../webhooks/secret-box.ts";
import { presentWebhookEndpoint } from "../../presenters/present-webhook-endpoint.ts";
import { endpointIdOf } from "./endpoint-lookup.ts";

export const rotateWebhookSecret: HandlerOf<Endpoints["rotateWebhookSecret"]> = async ({ params, query, principal, services }) => {
  const id = endpointIdOf(services.ids, params.id);
  const { companyId } = principal;
  const now = services.clock.now();
  const { key, secret } = generateWebhookSecret();
  const sealed = webhookSecretBox(services.config.idEncryptionKey).seal(companyId, key);
  key.fill(0);
  const row = await services.db.transaction().execute(async (trx) => {
    const current = await lockEndpointSecret(trx, companyId, id);
    if (current === undefined) throw new NotFound({ message: webhookMessages.endpointNotFound });
    const overlap = query.overlap_seconds > 0;
    return updateEndpoint(trx, companyId, id, {
      secret_ciphertext: sealed,
      previous_secret_ciphertext: overlap ? current : null,
      previous_secret_expires_at: overlap ? new Date(now.getTime() + query.overlap_seconds * 1000) : null,
      updated_at: now,
    });
  });
  return {
    body: {
      error: false,
      message: webhookMessages.secretRotated,
      data: { ...presentWebhookEndpoint(services.ids, row, now), secret },
    },
  };
};
