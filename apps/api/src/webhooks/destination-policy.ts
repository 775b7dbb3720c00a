/**
 * The api's webhook destination policy: endpoint URLs are vetted at creation
 * and on every URL change (the worker vets again before each attempt).
 * Private destinations are allowed outside production only. The api's
 * configuration has no `WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS` yet, so this is
 * the one place that derives the flag from the environment (see
 * docs/webhooks.md, "Integration").
 */
import { type DestinationPolicy, type HostResolver, systemResolver, vetDestination } from "@dc/db";
import { ValidationFailed } from "../http/api-error.ts";
import type { AppServices } from "../services.ts";

export const webhookDestinationPolicy = (config: AppServices["config"]): DestinationPolicy => ({
  allowPrivateDestinations: config.environment !== "production",
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
