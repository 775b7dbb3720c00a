/**
 * Webhook signing secrets (docs/decisions/0451). A secret is 32 random bytes,
 * shown once as `whsec_` + base64 (Standard Webhooks). It must stay usable
 * for HMAC, so it is encrypted at rest, never hashed: AES-256-GCM under a key
 * derived with HKDF-SHA256 from the id encryption secret (`ID_ENCRYPTION_KEY`)
 * with its own salt and info, so it is independent of the id and media keys.
 * The company id is the additional authenticated data: a ciphertext copied
 * to another company's endpoint does not decrypt.
 *
 * Stored form: version (1 byte) || nonce (12) || ciphertext (32) || tag (16).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const VERSION = 1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** Standard Webhooks allows 24 to 64 bytes; 32 is the HMAC-SHA256 block-friendly choice. */
export const WEBHOOK_SECRET_BYTES = 32;
export const WEBHOOK_SECRET_PREFIX = "whsec_";

export interface WebhookSecretBox {
  /** Encrypts the raw key bytes of a secret for `companyId`. */
  readonly seal: (companyId: number, key: Uint8Array) => Buffer;
  /** The raw key bytes, or throws when the ciphertext was not sealed for this company with this master secret. */
  readonly open: (companyId: number, sealed: Uint8Array) => Buffer;
}

/** A new signing key: the raw bytes (to seal) and its one-time display form. */
export const generateWebhookSecret = (): { readonly key: Buffer; readonly secret: string } => {
  const key = randomBytes(WEBHOOK_SECRET_BYTES);
  return { key, secret: formatWebhookSecret(key) };
};

/** `whsec_` + standard base64 of the key bytes. */
export const formatWebhookSecret = (key: Uint8Array): string => `${WEBHOOK_SECRET_PREFIX}${Buffer.from(key).toString("base64")}`;

/**
 * Builds the box from the master secret (`ID_ENCRYPTION_KEY` bytes). The api
 * seals secrets with it and the worker opens them: both must run with the
 * same master secret.
 */
export const makeWebhookSecretBox = (masterSecret: Uint8Array): WebhookSecretBox => {
  if (masterSecret.byteLength < 32) throw new Error("the id encryption secret must be at least 32 bytes");
  const key = Buffer.from(hkdfSync("sha256", masterSecret, "debt-collection/webhook-secrets", "aes-256-gcm v1", 32));
  const aad = (companyId: number) => Buffer.from(`webhook-endpoint-secret:company:${companyId}`);

  const seal = (companyId: number, secret: Uint8Array): Buffer => {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv("aes-256-gcm", key, nonce, { authTagLength: TAG_BYTES });
    cipher.setAAD(aad(companyId));
    const body = Buffer.concat([cipher.update(secret), cipher.final()]);
    return Buffer.concat([Buffer.of(VERSION), nonce, body, cipher.getAuthTag()]);
  };

  const open = (companyId: number, sealed: Uint8Array): Buffer => {
    const raw = Buffer.from(sealed);
    if (raw.byteLength <= 1 + NONCE_BYTES + TAG_BYTES || raw.readUInt8(0) !== VERSION) throw new Error("not a sealed webhook secret");
    const nonce = raw.subarray(1, 1 + NONCE_BYTES);
    const tag = raw.subarray(raw.byteLength - TAG_BYTES);
    const decipher = createDecipheriv("aes-256-gcm", key, nonce, { authTagLength: TAG_BYTES });
    decipher.setAAD(aad(companyId));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(raw.subarray(1 + NONCE_BYTES, raw.byteLength - TAG_BYTES)), decipher.final()]);
  };

  return { seal, open };
};
