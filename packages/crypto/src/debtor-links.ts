/**
 * The tokens of the debtor page's links (`/pay/<token>`, docs/decisions/0670):
 * an authenticated encryption of (company, debt, expiry day), so a link
 * names its debt without showing any row id, cannot be guessed or altered,
 * and lapses by itself.
 *
 * Construction, as the public ids' (public-ids.ts): plaintext = version(1)
 * || company id (8) || debt id (8) || expiry day (3, days since 1970-01-01);
 * IV = the first 16 bytes of HMAC-SHA256(macKey, plaintext); token =
 * base64url(IV || AES-256-CTR(encKey, IV, plaintext)), 48 characters. Both
 * keys come from `ID_ENCRYPTION_KEY` through HKDF under their own info, so
 * rotating that secret retires every link with the ids.
 *
 * Expiry: a link signed on day d lapses at the end of the 90-day period
 * after d's, so every message sent within one period carries the same link
 * (a debt's `payment_link` is stable between reads) and a link lives from
 * 90 to 180 days.
 *
 * `debtPaymentLink` is the one rule of a debt's `payment_link`, applied by
 * the api's reads, the debt.* webhook payloads (api and worker) and the
 * worker's messages alike.
 */
import { createCipheriv, createHmac, hkdfSync, timingSafeEqual } from "node:crypto";

const VERSION = 1;
const IV_BYTES = 16;
const PLAINTEXT_BYTES = 20;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{48}$/;
const DAY_MS = 86_400_000;
/** Length of the periods links are signed for, in days. */
export const DEBTOR_LINK_PERIOD_DAYS = 90;

export interface DebtorLinkTarget {
  readonly companyId: number;
  readonly debtId: number;
}

export type DebtorLinkCheck =
  | { readonly status: "valid"; readonly target: DebtorLinkTarget; readonly expiresAt: Date }
  | { readonly status: "expired" }
  | { readonly status: "invalid" };

export interface DebtorLinks {
  /** The token of `target`'s link signed at `now`. */
  readonly token: (target: DebtorLinkTarget, now: Date) => string;
  /** The link itself: `<baseUrl>/pay/<token>`. */
  readonly url: (baseUrl: string, target: DebtorLinkTarget, now: Date) => string;
  /** Decodes and authenticates a token (constant-time), then checks its expiry against `now`. */
  readonly check: (token: string, now: Date) => DebtorLinkCheck;
}

/**
 * What a process signs links with: the public origin of the debtor page
 * (`PUBLIC_BASE_URL` or its stand-in, no trailing slash) and the secret
 * (`ID_ENCRYPTION_KEY`).
 */
export interface DebtorLinkSigner {
  readonly origin: string;
  readonly secret: Uint8Array;
}

/** The path of a token's page. */
export const debtorPagePath = (token: string): string => `/pay/${token}`;

const dayOf = (date: Date) => Math.floor(date.getTime() / DAY_MS);

/** The last day a link signed on `day` is valid (inclusive). */
const expiryDayOf = (day: number) => (Math.floor(day / DEBTOR_LINK_PERIOD_DAYS) + 2) * DEBTOR_LINK_PERIOD_DAYS - 1;

const instances = new WeakMap<Uint8Array, DebtorLinks>();

/**
 * The link codec of a secret (built once per secret).
 *
 * @example debtorLinks(secret).url("https://pay.example", { companyId: 1, debtId: 42 }, now)
 */
export const debtorLinks = (secret: Uint8Array): DebtorLinks => {
  const known = instances.get(secret);
  if (known !== undefined) return known;
  const encKey = Buffer.from(hkdfSync("sha256", secret, "debt-collection/debtor-links", "aes-256-ctr v1", 32));
  const macKey = Buffer.from(hkdfSync("sha256", secret, "debt-collection/debtor-links", "hmac-sha256 v1", 32));
  const ivOf = (plaintext: Buffer) => createHmac("sha256", macKey).update(plaintext).digest().subarray(0, IV_BYTES);
  const ctr = (iv: Buffer, data: Buffer) => {
    const cipher = createCipheriv("aes-256-ctr", encKey, iv);
    return Buffer.concat([cipher.update(data), cipher.final()]);
  };

  const token = (target: DebtorLinkTarget, now: Date): string => {
    const plaintext = Buffer.alloc(PLAINTEXT_BYTES);
    plaintext.writeUInt8(VERSION, 0);
    plaintext.writeBigUInt64BE(BigInt(target.companyId), 1);
    plaintext.writeBigUInt64BE(BigInt(target.debtId), 9);
    plaintext.writeUIntBE(expiryDayOf(dayOf(now)), 17, 3);
    const iv = ivOf(plaintext);
    return Buffer.concat([iv, ctr(iv, plaintext)]).toString("base64url");
  };

  const codec: DebtorLinks = {
    token,
    url: (baseUrl, target, now) => `${baseUrl}${debtorPagePath(token(target, now))}`,
    check: (text, now) => {
      if (!TOKEN_PATTERN.test(text)) return { status: "invalid" };
      const bytes = Buffer.from(text, "base64url");
      // Base64url has several spellings of the same bytes; only the canonical one is the token.
      if (bytes.toString("base64url") !== text) return { status: "invalid" };
      const iv = bytes.subarray(0, IV_BYTES);
      const plaintext = ctr(iv, bytes.subarray(IV_BYTES));
      if (!timingSafeEqual(ivOf(plaintext), iv) || plaintext.readUInt8(0) !== VERSION) return { status: "invalid" };
      const companyId = Number(plaintext.readBigUInt64BE(1));
      const debtId = Number(plaintext.readBigUInt64BE(9));
      const expiryDay = plaintext.readUIntBE(17, 3);
      if (dayOf(now) > expiryDay) return { status: "expired" };
      return { status: "valid", target: { companyId, debtId }, expiresAt: new Date((expiryDay + 1) * DAY_MS) };
    },
  };
  instances.set(secret, codec);
  return codec;
};

/**
 * A debt's payment link (docs/decisions/0670): the company's own link when it
 * set one (blank counts as none), otherwise the platform's debtor page link
 * of `target`, signed at `now`.
 *
 * @example debtPaymentLink(row.payment_link, { origin, secret }, { companyId, debtId }, now)
 */
export const debtPaymentLink = (
  companyLink: string | null,
  signer: DebtorLinkSigner,
  target: DebtorLinkTarget,
  now: Date,
): string =>
  companyLink !== null && companyLink.trim() !== ""
    ? companyLink
    : debtorLinks(signer.secret).url(signer.origin, target, now);
