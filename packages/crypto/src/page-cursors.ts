/**
 * Page cursors of the lists (docs/decisions/0595): a position in a list,
 * sealed for one company's walk of one list under one set of filters, so a
 * cursor is opaque (it shows neither row keys nor timestamps) and cannot be
 * forged, altered or replayed elsewhere.
 *
 * Construction: the public ids' (public-ids.ts, docs/decisions/0002), with
 * the binding as associated data. Synthetic IV = first 16 bytes of
 * HMAC-SHA256(macKey, length(binding) || binding || payload); ciphertext =
 * AES-256-CTR(encKey, IV, payload); cursor = base64url(version || IV ||
 * ciphertext). Opening decrypts, recomputes the IV and compares in constant
 * time, so a cursor opened under another binding (another company, list or
 * filter) fails exactly like a tampered one. Both keys are derived with HKDF
 * from `ID_ENCRYPTION_KEY` under their own salt, independent of the id, media
 * and webhook keys.
 *
 * Speed (a cursor is opened and another sealed on every cursor page): as in
 * public-ids.ts, HMAC runs from two prepared hash states and the CTR
 * keystream comes from one long-lived AES-ECB cipher over the counter
 * blocks, instead of a new Hmac and a new cipher per call, which cost
 * several times more than the rest of the work.
 */
import { createCipheriv, createHash, hkdfSync, timingSafeEqual } from "node:crypto";

const VERSION = 1;
const IV_BYTES = 16;
/** Longer text is not a cursor of ours: refused before any decoding. */
export const MAX_CURSOR_LENGTH = 512;
const CURSOR_PATTERN = /^[A-Za-z0-9_-]+$/;

export interface CursorBox {
  /** The cursor of `payload` (any text) for `binding` (company, list and filters, in one string). */
  readonly seal: (binding: string, payload: string) => string;
  /** The payload, or undefined when `cursor` was not sealed for `binding` with this secret. */
  readonly open: (binding: string, cursor: string) => string | undefined;
}

/**
 * Builds the box of a master secret (`ID_ENCRYPTION_KEY` bytes, at least 32).
 *
 * @example
 * const box = makeCursorBox(secret);
 * const cursor = box.seal("company:7|listDebts|{}", "[20,1764000000000000,42]");
 * box.open("company:7|listDebts|{}", cursor); // "[20,1764000000000000,42]"
 * box.open("company:8|listDebts|{}", cursor); // undefined
 */
export const makeCursorBox = (masterSecret: Uint8Array): CursorBox => {
  if (masterSecret.byteLength < 32) throw new Error("the id encryption secret must be at least 32 bytes");
  const derive = (info: string) => Buffer.from(hkdfSync("sha256", masterSecret, "debt-collection/page-cursors", info, 32));
  const encryptionKey = derive("aes-256-ctr v1");
  const macKey = derive("hmac-sha256 v1");

  // HMAC-SHA256 (RFC 2104) from two prepared hash states: copying them is cheaper than a new Hmac per call.
  const inner = createHash("sha256").update(macKey.map((byte) => byte ^ 0x36)).update(Buffer.alloc(32, 0x36));
  const outer = createHash("sha256").update(macKey.map((byte) => byte ^ 0x5c)).update(Buffer.alloc(32, 0x5c));
  const syntheticIv = (binding: Buffer, payload: Buffer): Buffer => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(binding.byteLength);
    const innerDigest = inner.copy().update(length).update(binding).update(payload).digest();
    return outer.copy().update(innerDigest).digest().subarray(0, IV_BYTES);
  };
  // AES-256-CTR: block i of the keystream is AES-256-ECB(key, IV + i), the IV read as a 128-bit big-endian counter.
  const blockCipher = createCipheriv("aes-256-ecb", encryptionKey, null).setAutoPadding(false);
  const ctr = (iv: Buffer, input: Buffer): Buffer => {
    const blocks = Math.ceil(input.byteLength / IV_BYTES);
    const counters = Buffer.alloc(blocks * IV_BYTES);
    const high = iv.readBigUInt64BE(0);
    const low = iv.readBigUInt64BE(8);
    for (let block = 0; block < blocks; block++) {
      const sum = low + BigInt(block);
      counters.writeBigUInt64BE(BigInt.asUintN(64, high + (sum >> 64n)), block * IV_BYTES);
      counters.writeBigUInt64BE(BigInt.asUintN(64, sum), block * IV_BYTES + 8);
    }
    const keystream = blockCipher.update(counters);
    const output = Buffer.allocUnsafe(input.byteLength);
    for (let i = 0; i < input.byteLength; i++) output[i] = input[i]! ^ keystream[i]!;
    return output;
  };

  const seal = (binding: string, payload: string): string => {
    const plaintext = Buffer.from(payload, "utf8");
    const iv = syntheticIv(Buffer.from(binding, "utf8"), plaintext);
    return Buffer.concat([Buffer.of(VERSION), iv, ctr(iv, plaintext)]).toString("base64url");
  };

  const open = (binding: string, cursor: string): string | undefined => {
    if (cursor.length > MAX_CURSOR_LENGTH || !CURSOR_PATTERN.test(cursor)) return undefined;
    const raw = Buffer.from(cursor, "base64url");
    // Base64url has several spellings of the same bytes; only the canonical one is the cursor.
    if (raw.byteLength < 1 + IV_BYTES || raw.toString("base64url") !== cursor || raw.readUInt8(0) !== VERSION) return undefined;
    const iv = raw.subarray(1, 1 + IV_BYTES);
    const plaintext = ctr(iv, raw.subarray(1 + IV_BYTES));
    if (!timingSafeEqual(syntheticIv(Buffer.from(binding, "utf8"), plaintext), iv)) return undefined;
    return plaintext.toString("utf8");
  };

  return { seal, open };
};
