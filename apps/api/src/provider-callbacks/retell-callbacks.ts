/**
 * Verifies Retell's webhooks (`x-retell-signature` with `RETELL_API_KEY`,
 * within 5 minutes of the api's clock) and keys them for storage: one
 * event per call and event name, so Retell's retries and replays are stored
 * once. A webhook whose metadata names another company than its URL is
 * refused like a forged one.
 */
import { Retell } from "@dc/providers";
import type { AppServices } from "../services.ts";
import type { VerifyCallback } from "./receive-callback.ts";

export const verifyRetell =
  (services: AppServices): VerifyCallback =>
  ({ url, headers, body }) => {
    const retell = services.config.providers.retell;
    if (retell === undefined) return undefined;
    const raw = body.toString("utf8");
    const signature = headers[Retell.RETELL_SIGNATURE_HEADER];
    if (
      !Retell.verifySignature(
        retell.apiKey,
        raw,
        typeof signature === "string" ? signature : undefined,
        services.clock.now(),
      )
    )
      return undefined;
    let payload: unknown;
    try {
      payload = JSON.parse(raw);
    } catch {
      return [];
    }
    const envelope = Retell.webhookEnvelope(payload);
    if (envelope === undefined) return [];
    const company = decodeURIComponent(new URL(url).pathname.split("/").at(-1) ?? "");
    if (envelope.metadata.company_id !== undefined && envelope.metadata.company_id !== company) return undefined;
    return [{ eventKey: envelope.eventKey, payload }];
  };
