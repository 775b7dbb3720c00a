/**
 * The api's webhook destination policy: endpoint URLs are vetted at creation
 * and on every URL change (the worker vets again before each attempt).
 * Private destinations follow `WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS` (allowed
 * outside production, refused in production unless set), as in the worker.
 */
import {
  type DestinationPolicy,
  type HostResolver,
  resolverWithDeadline,
  systemResolver,
  vetDestination,
} from "@dc/ssrf";
import { ValidationFailed } from "../http/api-error.ts";
import type { AppServices } from "../services.ts";

export const webhookDestinationPolicy = (config: AppServices["config"]): DestinationPolicy => ({
  allowPrivateDestinations: config.webhooksAllowPrivateDestinations,
});

/** How long a request waits for the endpoint's host name to resolve before refusing it. */
export const DESTINATION_LOOKUP_TIMEOUT_MS = 5_000;

/** Throws a 400 naming `url` when the URL may not receive webhooks (a name that does not resolve in time included). */
export const assertWebhookDestination = async (
  services: Pick<AppServices, "config">,
  url: string,
  resolve: HostResolver = systemResolver,
): Promise<void> => {
  const vetted = await vetDestination(
    url,
    webhookDestinationPolicy(services.config),
    resolverWithDeadline(resolve, DESTINATION_LOOKUP_TIMEOUT_MS),
  );
  if (!vetted.ok) throw new ValidationFailed({ details: { url: vetted.reason.replace(/^url /, "") } });
};
