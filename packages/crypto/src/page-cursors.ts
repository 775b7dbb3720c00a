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
 */
import { createCipheriv, createHmac, hkdfSync, timingSafeEqual } from "node:crypto";

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

  const syntheticIv = (binding: Buffer, payload: Buffer): Buffer => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(binding.byteLength);
    return createHmac("sha256", macKey).update(length).update(binding).update(payload).digest().subarray(0, IV_BYTES);
  };
  const ctr = (iv: Buffer, input: Buffer): Buffer => {
    const cipher = createCipheriv("aes-256-ctr", encryptionKey, iv);
    return Buffer.concat([cipher.update(input), cipher.final()]);
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
