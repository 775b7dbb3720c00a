/** What webhook delivery needs beyond the database, the clock and the log. */
import type { HostResolver } from "@dc/ssrf";

export interface WebhookDeliverySettings {
  /** The id encryption master secret (`ID_ENCRYPTION_KEY`): it opens the sealed signing secrets. */
  readonly idEncryptionKey: Uint8Array;
  /** `WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS`: false in production. */
  readonly allowPrivateDestinations: boolean;
  /** Per attempt, from connecting to the end of the response (default 10 s). */
  readonly timeoutMs?: number;
  /** DNS resolution of endpoint hosts (tests substitute it). */
  readonly resolve?: HostResolver;
  /** Jitter source in [0, 1) (tests pin it). */
  readonly random?: () => number;
}

export const DEFAULT_ATTEMPT_TIMEOUT_MS = 10_000;

export const WEBHOOK_USER_AGENT = "DebtCollection-Webhooks/1.0 (+standard-webhooks)";
