/**
 * External ids: deterministic authenticated encryption of (kind, integer key)
 * with a server key, URL-safe. The same row always gets the same id (so ids
 * are stable and comparable), an id of one kind never decodes as another, and
 * a tampered, truncated or forged id does not decode at all.
 *
 * Construction (SIV-style, RFC 5297 in spirit): plaintext = version(1) ||
 * kind tag(1) || key (8, big-endian); synthetic IV = first 16 bytes of
 * HMAC-SHA256(macKey, plaintext); ciphertext = AES-256-CTR(encKey, IV,
 * plaintext); id = base64url(IV || ciphertext), 35 characters. Decoding
 * decrypts, recomputes the IV and compares in constant time. Keys are derived
 * from one master secret with HKDF, so rotating the secret rotates both.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, timingSafeEqual } from "node:crypto";

const VERSION = 1;
const IV_BYTES = 16;
const PLAINTEXT_BYTES = 10;
const ENCODED_LENGTH = Math.ceil(((IV_BYTES + PLAINTEXT_BYTES) * 4) / 3);
const ENCODED_PATTERN = /^[A-Za-z0-9_-]+$/;

export interface IdCodec<Kind extends string> {
  /** The external id of row `key` of `kind`. */
  readonly encode: (kind: Kind, key: number) => string;
  /** The integer key, or undefined when `id` is not a valid id of `kind`. */
  readonly decode: (kind: Kind, id: string) => number | undefined;
}

/**
 * Builds a codec from a master secret (at least 32 bytes) and the stable tag
 * of each kind (1..255; a tag must never change once ids are published).
 */
export const makeIdCodec = <Kind extends string>(
  masterSecret: Uint8Array,
  tags: Readonly<Record<Kind, number>>,
): IdCodec<Kind> => {
  if (masterSecret.byteLength < 32) throw new Error("the id encryption secret must be at least 32 bytes");
  const derive = (info: string) => Buffer.from(hkdfSync("sha256", masterSecret, "debt-collection/public-ids", info, 32));
  const encryptionKey = derive("aes-256-ctr");
  const macKey = derive("hmac-sha256");
  const syntheticIv = (plaintext: Buffer) => createHmac("sha256", macKey).update(plaintext).digest().subarray(0, IV_BYTES);

  const encode = (kind: Kind, key: number): string => {
    if (!Number.isSafeInteger(key) || key < 0) throw new RangeError(`not an id key: ${key}`);
    const plaintext = Buffer.alloc(PLAINTEXT_BYTES);
    plaintext.writeUInt8(VERSION, 0);
    plaintext.writeUInt8(tags[kind], 1);
    plaintext.writeBigUInt64BE(BigInt(key), 2);
    const iv = syntheticIv(plaintext);
    const cipher = createCipheriv("aes-256-ctr", encryptionKey, iv);
    return Buffer.concat([iv, cipher.update(plaintext), cipher.final()]).toString("base64url");
  };

  const decode = (kind: Kind, id: string): number | undefined => {
    if (id.length !== ENCODED_LENGTH || !ENCODED_PATTERN.test(id)) return undefined;
    const raw = Buffer.from(id, "base64url");
    if (raw.byteLength !== IV_BYTES + PLAINTEXT_BYTES) return undefined;
    const iv = raw.subarray(0, IV_BYTES);
    const decipher = createDecipheriv("aes-256-ctr", encryptionKey, iv);
    const plaintext = Buffer.concat([decipher.update(raw.subarray(IV_BYTES)), decipher.final()]);
    if (!timingSafeEqual(syntheticIv(plaintext), iv)) return undefined;
    if (plaintext.readUInt8(0) !== VERSION || plaintext.readUInt8(1) !== tags[kind]) return undefined;
    const key = plaintext.readBigUInt64BE(2);
    return key <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(key) : undefined;
  };

  return { encode, decode };
};
