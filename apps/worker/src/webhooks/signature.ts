/**
 * Standard Webhooks v1 signatures: `v1,` + base64 of HMAC-SHA256 over
 * `{webhook-id}.{webhook-timestamp}.{body}`, one per secret, space-separated
 * (two during a rotation's overlap, the new secret first).
 */
import { createHmac } from "node:crypto";

const signWebhook = (key: Uint8Array, id: string, timestampSeconds: number, body: string): string =>
  `v1,${createHmac("sha256", key).update(`${id}.${timestampSeconds}.${body}`).digest("base64")}`;

export const signatureHeader = (keys: ReadonlyArray<Uint8Array>, id: string, timestampSeconds: number, body: string): string =>
  keys.map((key) => signWebhook(key, id, timestampSeconds, body)).join(" ");
