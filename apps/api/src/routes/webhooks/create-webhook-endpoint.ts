/**
 * POST /webhooks/endpoints: registers an endpoint and returns its signing
 * secret, once. The URL is vetted first (docs/decisions/0454); the secret is
 * stored only sealed (docs/decisions/0451). Creations of one company are
 * serialised on its row so the endpoint limit holds under concurrency.
 */
import { type Endpoints, MAX_WEBHOOK_ENDPOINTS, webhookErrorCodes, webhookMessages } from "@dc/contract";
import { generateWebhookSecret } from "@dc/crypto";
import { countEndpoints, insertEndpoint, lockCompany } from "@dc/db";
import { Conflict } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { assertWebhookDestination } from "../../webhooks/destination-policy.ts";
import { webhookSecretBox } from "../../webhooks/secret-box.ts";
import { presentWebhookEndpoint } from "../../presenters/present-webhook-endpoint.ts";

export const createWebhookEndpoint: HandlerOf<Endpoints["createWebhookEndpoint"]> = async ({ body, principal, services }) => {
  await assertWebhookDestination(services, body.url);
  const { companyId } = principal;
  const now = services.clock.now();
  const { key, secret } = generateWebhookSecret();
  const enabled = body.enabled ?? true;
  const row = await services.db.transaction().execute(async (trx) => {
    await lockCompany(trx, companyId);
    if ((await countEndpoints(trx, companyId)) >= MAX_WEBHOOK_ENDPOINTS) {
      throw new Conflict({ errorCode: webhookErrorCodes.limitReached, message: webhookMessages.limitReached });
    }
    return insertEndpoint(trx, {
      company_id: companyId,
      url: body.url,
      description: body.description ?? null,
      event_types: [...(body.event_types ?? [])],
      enabled,
      ordered: body.ordered ?? false,
      disabled_reason: enabled ? null : "manual",
      disabled_at: enabled ? null : now,
      secret_ciphertext: webhookSecretBox(services.config.idEncryptionKey).seal(companyId, key),
      created_at: now,
      updated_at: now,
    });
  });
  key.fill(0);
  return {
    body: {
      error: false,
      message: webhookMessages.created,
      data: { ...presentWebhookEndpoint(services.ids, row, now), secret },
    },
  };
};
