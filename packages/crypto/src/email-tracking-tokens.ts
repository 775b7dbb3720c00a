/**
 * The signed tokens of collection e-mails (docs/decisions/0655): the open
 * pixel, the tracked links, the unsubscribe link and the bounce address
 * each carry one, naming the company and the followup (and, for a link,
 * its target). The worker signs them when it renders an e-mail; the api
 * and the bounce receiver verify them before they write anything. The MAC
 * is HMAC-SHA256, truncated to 128 bits, under a key derived with HKDF from
 * the id encryption secret (`ID_ENCRYPTION_KEY`) with its own salt and info,
 * so it is independent of the id, media and webhook keys.
 *
 * Wire form: version (1) || purpose (1) || company id || followup id (both
 * unsigned LEB128) || target (UTF-8, links only) || MAC (16), written in
 * lower-case base32 without padding: a bounce address's local part may be
 * lower-cased on its way back, and the bounce token (about 40 characters)
 * fits the 64 octets of RFC 5321 with a short prefix.
 */
import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";

const VERSION = 1;
const MAC_BYTES = 16;

export const trackingPurposes = ["open", "click", "unsubscribe", "bounce"] as const;
export type TrackingPurpose = (typeof trackingPurposes)[number];

/** The e-mail a token belongs to. */
export interface TrackedEmail {
  readonly companyId: number;
  readonly followupId: number;
}

export interface EmailTrackingTokens {
  /** The token of `email` for `purpose`; `target` is the link's address (click tokens only). */
  readonly sign: (purpose: TrackingPurpose, email: TrackedEmail, target?: string) => string;
  /** What a token names, or undefined when it was not signed with this secret for this purpose (constant-time MAC check). */
  readonly verify: (
    purpose: TrackingPurpose,
    token: string,
  ) => (TrackedEmail & { readonly target: string | undefined }) | undefined;
}

const alphabet = "abcdefghijklmnopqrstuvwxyz234567";

/** RFC 4648 base32, lower case, without padding. */
export const base32 = (bytes: Uint8Array): string => {
  let text = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      text += alphabet[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) text += alphabet[(buffer << (5 - bits)) & 31];
  return text;
};

/** The bytes of lower-case base32 text, or undefined for text that is not its canonical spelling. */
const fromBase32 = (text: string): Buffer | undefined => {
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const character of text) {
    const value = alphabet.indexOf(character);
    if (value < 0) return undefined;
    buffer = (buffer << 5) | value;
    bits += 5;
    if (bits >= 8) {
      bytes.push((buffer >>> (bits - 8)) & 255);
      bits -= 8;
    }
    buffer &= (1 << bits) - 1;
  }
  // Leftover bits must be zero and fewer than 5, or another text spells the same bytes.
  if (bits >= 5 || buffer !== 0) return undefined;
  return Buffer.from(bytes);
};

const writeVarint = (value: number, into: number[]): void => {
  let rest = value;
  while (rest >= 128) {
    into.push((rest % 128) | 128);
    rest = Math.floor(rest / 128);
  }
  into.push(rest);
};

/** The integer at `offset` and the offset after it, or undefined past the end or past 2^53. */
const readVarint = (bytes: Buffer, offset: number): [number, number] | undefined => {
  let value = 0;
  let scale = 1;
  for (let at = offset; at < bytes.length && at < offset + 8; at++) {
    const byte = bytes[at]!;
    value += (byte & 127) * scale;
    if (byte < 128) return Number.isSafeInteger(value) ? [value, at + 1] : undefined;
    scale *= 128;
  }
  return undefined;
};

const boxes = new WeakMap<Uint8Array, EmailTrackingTokens>();

/**
 * The tokens of a secret (built once per secret). The api and the worker
 * must run with the same `ID_ENCRYPTION_KEY`.
 *
 * @example emailTrackingTokens(config.idEncryptionKey).sign("open", { companyId: 1, followupId: 42 })
 */
export const emailTrackingTokens = (secret: Uint8Array): EmailTrackingTokens => {
  const known = boxes.get(secret);
  if (known !== undefined) return known;
  const key = Buffer.from(hkdfSync("sha256", secret, "debt-collection/email-tracking", "hmac-sha256 v1", 32));
  const mac = (payload: Uint8Array): Buffer => createHmac("sha256", key).update(payload).digest().subarray(0, MAC_BYTES);

  const tokens: EmailTrackingTokens = {
    sign: (purpose, email, target) => {
      const bytes: number[] = [VERSION, trackingPurposes.indexOf(purpose)];
      writeVarint(email.companyId, bytes);
      writeVarint(email.followupId, bytes);
      const payload = Buffer.concat([Buffer.from(bytes), Buffer.from(purpose === "click" ? (target ?? "") : "", "utf8")]);
      return base32(Buffer.concat([payload, mac(payload)]));
    },
    verify: (purpose, token) => {
      const bytes = fromBase32(token.toLowerCase());
      if (bytes === undefined || bytes.length < 4 + MAC_BYTES) return undefined;
      const payload = bytes.subarray(0, bytes.length - MAC_BYTES);
      if (!timingSafeEqual(mac(payload), bytes.subarray(bytes.length - MAC_BYTES))) return undefined;
      if (payload[0] !== VERSION || payload[1] !== trackingPurposes.indexOf(purpose)) return undefined;
      const company = readVarint(payload, 2);
      const followup = company === undefined ? undefined : readVarint(payload, company[1]);
      if (company === undefined || followup === undefined) return undefined;
      const rest = payload.subarray(followup[1]);
      if (purpose !== "click" && rest.length > 0) return undefined;
      return {
        companyId: company[0],
        followupId: followup[0],
        target: purpose === "click" ? rest.toString("utf8") : undefined,
      };
    },
  };
  boxes.set(secret, tokens);
  return tokens;
};
