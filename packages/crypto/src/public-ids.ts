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
 *
 * Speed (ids are encoded for every row of every response): the plaintext is
 * shorter than one AES block, so CTR's keystream is the single block
 * AES(encKey, IV); one long-lived AES-ECB cipher computes it, instead of a new
 * CTR cipher per id. Results are also memoised in a bounded cache: the same
 * ids (a creditor, a timeline) recur on every row.
 */
import { createCipheriv, createHash, hkdfSync, timingSafeEqual } from "node:crypto";

const VERSION = 1;
const IV_BYTES = 16;
const PLAINTEXT_BYTES = 10;
const ENCODED_LENGTH = Math.ceil(((IV_BYTES + PLAINTEXT_BYTES) * 4) / 3);
const ENCODED_PATTERN = /^[A-Za-z0-9_-]+$/;
const CACHE_ENTRIES = 50_000;

/** A Map that forgets its oldest entries past `limit` (insertion order). */
const boundedCache = <V>(limit: number) => {
  const entries = new Map<string, V>();
  return {
    get: (key: string) => entries.get(key),
    set: (key: string, value: V) => {
      if (entries.size >= limit) entries.delete(entries.keys().next().value as string);
      entries.set(key, value);
    },
  };
};

/**
 * The id key of development and tests when `ID_ENCRYPTION_KEY` is not set.
 * Public: anything encrypted with it can be forged. The api and the worker
 * share it because the webhook signing secrets the api seals, the worker opens.
 */
export const DEVELOPMENT_ID_ENCRYPTION_KEY = "development-only-id-encryption-key-do-not-use-in-production";

/** What the api and the worker log at start-up when they run with that key. */
export const DEVELOPMENT_KEY_WARNING =
  "ID_ENCRYPTION_KEY is not set: ids, media links and webhook secrets use the public development key. " +
  "Fine for development; never for real data (set NODE_ENV=production and ID_ENCRYPTION_KEY).";

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
  // HMAC-SHA256 (RFC 2104) from two prepared hash states: copying them is cheaper than a new Hmac per id.
  const inner = createHash("sha256").update(macKey.map((byte) => byte ^ 0x36)).update(Buffer.alloc(32, 0x36));
  const outer = createHash("sha256").update(macKey.map((byte) => byte ^ 0x5c)).update(Buffer.alloc(32, 0x5c));
  const syntheticIv = (plaintext: Buffer) =>
    outer.copy().update(inner.copy().update(plaintext).digest()).digest().subarray(0, IV_BYTES);
  // AES-256-CTR's first keystream block is AES-256-ECB(key, IV): one block covers the 10-byte plaintext.
  const blockCipher = createCipheriv("aes-256-ecb", encryptionKey, null).setAutoPadding(false);
  const ctrXor = (iv: Buffer, input: Buffer): Buffer => {
    const keystream = blockCipher.update(iv);
    const output = Buffer.allocUnsafe(input.byteLength);
    for (let i = 0; i < input.byteLength; i++) output[i] = input[i]! ^ keystream[i]!;
    return output;
  };
  const encoded = boundedCache<string>(CACHE_ENTRIES);
  const decoded = boundedCache<number | undefined>(CACHE_ENTRIES);

  const encode = (kind: Kind, key: number): string => {
    if (!Number.isSafeInteger(key) || key < 0) throw new RangeError(`not an id key: ${key}`);
    const cacheKey = `${tags[kind]}:${key}`;
    const cached = encoded.get(cacheKey);
    if (cached !== undefined) return cached;
    const plaintext = Buffer.alloc(PLAINTEXT_BYTES);
    plaintext.writeUInt8(VERSION, 0);
    plaintext.writeUInt8(tags[kind], 1);
    plaintext.writeBigUInt64BE(BigInt(key), 2);
    const iv = syntheticIv(plaintext);
    const id = Buffer.concat([iv, ctrXor(iv, plaintext)]).toString("base64url");
    encoded.set(cacheKey, id);
    return id;
  };

  const decodeUncached = (kind: Kind, id: string): number | undefined => {
    if (id.length !== ENCODED_LENGTH || !ENCODED_PATTERN.test(id)) return undefined;
    const raw = Buffer.from(id, "base64url");
    if (raw.byteLength !== IV_BYTES + PLAINTEXT_BYTES) return undefined;
    // The last character carries 2 unused bits: only the canonical spelling of an id is that id.
    if (raw.toString("base64url") !== id) return undefined;
    const iv = raw.subarray(0, IV_BYTES);
    const plaintext = ctrXor(iv, raw.subarray(IV_BYTES));
    if (!timingSafeEqual(syntheticIv(plaintext), iv)) return undefined;
    if (plaintext.readUInt8(0) !== VERSION || plaintext.readUInt8(1) !== tags[kind]) return undefined;
    const key = plaintext.readBigUInt64BE(2);
    return key <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(key) : undefined;
  };

  const decode = (kind: Kind, id: string): number | undefined => {
    // Only well-formed ids are memoised, so hostile input cannot flood the cache with junk keys.
    if (id.length !== ENCODED_LENGTH) return undefined;
    const cacheKey = `${tags[kind]}:${id}`;
    const cached = decoded.get(cacheKey);
    if (cached !== undefined) return cached;
    const key = decodeUncached(kind, id);
    if (key !== undefined) decoded.set(cacheKey, key);
    return key;
  };

  return { encode, decode };
};
