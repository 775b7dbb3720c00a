/**
 * The api's webhook destination policy: endpoint URLs are vetted at creation
 * and on every URL change (the worker vets again before each attempt).
 * Private destinations follow `WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS` (allowed
 * outside production, refused in production unless set), as in the worker.
 */
import { type DestinationPolicy, type HostResolver, systemResolver, vetDestination } from "@dc/db";
import { ValidationFailed } from "../http/api-error.ts";
import type { AppServices } from "../services.ts";

export const webhookDestinationPolicy = (config: AppServices["config"]): DestinationPolicy => ({
  allowPrivateDestinations: config.webhooksAllowPrivateDestinations,
});

/** Throws a 400 naming `url` when the URL may not receive webhooks. */
export const assertWebhookDestination = async (
  services: Pick<AppServices, "config">,
  url: string,
  resolve: HostResolver = systemResolver,
): Promise<void> => {
  const vetted = await vetDestination(url, webhookDestinationPolicy(services.config), resolve);
  if (!vetted.ok) throw new ValidationFailed({ details: { url: vetted.reason.replace(/^url /, "") } });
};
