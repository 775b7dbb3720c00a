/**
 * Pre-signed media links (docs/decisions/0153). A followup's recording or
 * document, and a dispute's attachment (docs/decisions/0674), are served
 * through `GET /external-api/v1/media/{key}`, where the
 * link carries its expiry and an HMAC-SHA256 over (key, expiry). The MAC key
 * is derived with HKDF from the id encryption secret under its own salt and
 * info, so it is independent of the id keys and rotates with the secret.
 */
import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import { API_PREFIX, MEDIA_URL_TTL_SECONDS } from "@dc/contract";
import type { DomainIds as Ids } from "@dc/db";

export type FollowupMediaKind = "audio" | "pdf";

export interface SignedMediaUrl {
  readonly url: string;
  readonly expiresAt: Date;
}

export type Verification = "valid" | "invalid" | "expired";

export interface MediaSigner {
  /** A link to one media object, valid for 1 hour from `now`. */
  readonly sign: (baseUrl: string, media: MediaRef, now: Date) => SignedMediaUrl;
  /** Checks a link's signature first (constant time), then its expiry against `now`. */
  readonly verify: (key: string, expires: number, signature: string, now: Date) => Verification;
}

/**
 * One media object and its company (every tenant lookup carries it): a
 * followup's recording or PDF, or a debtor request's attachment.
 */
export type MediaRef =
  | { readonly companyId: number; readonly followupId: number; readonly kind: FollowupMediaKind }
  | { readonly companyId: number; readonly debtorRequestId: number; readonly kind: "attachment" };

/** `<company id>.<followup or debtor request id>.<kind>`, ids encrypted: base64url has no dot. */
const mediaKey = (ids: Ids, media: MediaRef): string => {
  const owner =
    media.kind === "attachment" ? ids.encode("debtor_request", media.debtorRequestId) : ids.encode("followup", media.followupId);
  return `${ids.encode("company", media.companyId)}.${owner}.${media.kind}`;
};

/** The media a key names, or undefined for a key that names none. */
export const parseMediaKey = (ids: Ids, key: string): MediaRef | undefined => {
  const [company = "", owner = "", kind, ...rest] = key.split(".");
  const companyId = ids.decode("company", company);
  if (rest.length > 0 || companyId === undefined) return undefined;
  if (kind === "attachment") {
    const debtorRequestId = ids.decode("debtor_request", owner);
    return debtorRequestId === undefined ? undefined : { companyId, debtorRequestId, kind };
  }
  if (kind !== "audio" && kind !== "pdf") return undefined;
  const followupId = ids.decode("followup", owner);
  return followupId === undefined ? undefined : { companyId, followupId, kind };
};

const signers = new WeakMap<Uint8Array, MediaSigner>();

/**
 * The signer of a secret (built once per secret).
 *
 * @example mediaSigner(config.idEncryptionKey, ids).sign("https://api.example", { companyId: 1, followupId: 42, kind: "audio" }, now).url
 */
export const mediaSigner = (secret: Uint8Array, ids: Ids): MediaSigner => {
  const known = signers.get(secret);
  if (known !== undefined) return known;
  const macKey = Buffer.from(hkdfSync("sha256", secret, "debt-collection/media-urls", "hmac-sha256 v1", 32));
  const mac = (key: string, expires: number) => createHmac("sha256", macKey).update(`v1\n${key}\n${expires}`).digest();

  const signer: MediaSigner = {
    sign: (baseUrl, media, now) => {
      const key = mediaKey(ids, media);
      const expires = Math.floor(now.getTime() / 1000) + MEDIA_URL_TTL_SECONDS;
      const signature = mac(key, expires).toString("base64url");
      return {
        url: `${baseUrl}${API_PREFIX}/media/${key}?expires=${expires}&signature=${signature}`,
        expiresAt: new Date(expires * 1000),
      };
    },
    verify: (key, expires, signature, now) => {
      const expected = mac(key, expires);
      const presented = Buffer.from(signature, "base64url");
      if (presented.byteLength !== expected.byteLength || !timingSafeEqual(presented, expected)) return "invalid";
      // Base64url has several spellings of the same bytes; only the canonical one is the signature.
      if (presented.toString("base64url") !== signature) return "invalid";
      return now.getTime() < expires * 1000 ? "valid" : "expired";
    },
  };
  signers.set(secret, signer);
  return signer;
};
