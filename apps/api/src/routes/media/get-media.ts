/**
 * GET /media/{key}: follows a pre-signed media link. The signature is the
 * credential (no bearer token): it is checked first, in constant time, then
 * the expiry, and only then is the database asked where the media lives: a
 * URL is redirected to, an object the platform stores is answered itself.
 */
import { type Endpoints, mediaMessages } from "@dc/contract";
import { findDebtorRequestAttachment, findFollowupMedia, findStoredObject } from "@dc/db";
import { AccessDenied, Gone, NotFound } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { mediaSigner, parseMediaKey } from "../../media/signed-urls.ts";

export const getMedia: HandlerOf<Endpoints["getMedia"]> = async ({ params, query, services }) => {
  const signer = mediaSigner(services.config.idEncryptionKey, services.ids);
  const verdict = signer.verify(params.key, query.expires, query.signature, services.clock.now());
  if (verdict === "invalid") throw new AccessDenied({ message: mediaMessages.invalidSignature });
  if (verdict === "expired") throw new Gone({ message: mediaMessages.expired });
  const media = parseMediaKey(services.ids, params.key);
  if (media === undefined) throw new NotFound({ message: mediaMessages.notFound });
  if (media.kind === "attachment") {
    // A dispute's attachment (docs/decisions/0674): a download under its own name, never rendered on our origin.
    const attachment = await findDebtorRequestAttachment(services.db, media.companyId, media.debtorRequestId);
    if (attachment === undefined) throw new NotFound({ message: mediaMessages.notFound });
    return {
      status: 200,
      body: { error: false, message: mediaMessages.redirect },
      headers: {
        "Content-Disposition": contentDisposition(attachment.file_name ?? "attachment"),
        "Content-Security-Policy": "default-src 'none'; sandbox",
        "X-Content-Type-Options": "nosniff",
      },
      document: { contentType: attachment.content_type, bytes: attachment.body },
    };
  }
  const row = await findFollowupMedia(services.db, media.companyId, media.followupId);
  const stored = media.kind === "audio" ? row?.audio_object_key : row?.pdf_object_key;
  const location = httpUrl(stored);
  if (location === undefined) {
    // Not a URL: the key of an object the platform stores itself (a letter's PDF, docs/decisions/0650).
    const object =
      stored === null || stored === undefined
        ? undefined
        : await findStoredObject(services.db, media.companyId, stored);
    if (object === undefined) throw new NotFound({ message: mediaMessages.notFound });
    return {
      status: 200,
      body: { error: false, message: mediaMessages.redirect },
      headers: { "Content-Disposition": "inline" },
      document: { contentType: object.content_type, bytes: object.body },
    };
  }
  return {
    status: 302,
    body: { error: false, message: mediaMessages.redirect },
    headers: { Location: location, "Referrer-Policy": "no-referrer" },
  };
};

/**
 * The stored address as a header-safe http(s) URL (URL percent-encodes what a
 * header may not carry), or undefined when there is none we may redirect to.
 */
const httpUrl = (stored: string | null | undefined): string | undefined => {
  if (stored === null || stored === undefined) return undefined;
  try {
    const url = new URL(stored);
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : undefined;
  } catch {
    return undefined;
  }
};

/**
 * `attachment` with the file's name: an ASCII fallback (quotes, backslashes
 * and anything outside printable ASCII as `_`) and the exact name in RFC 8187
 * form, so a header never carries what it may not.
 */
const contentDisposition = (name: string): string => {
  const fallback = name.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
};
