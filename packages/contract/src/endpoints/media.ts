/**
 * Pre-signed media links (contract 2.4 and part 8): followup reads return
 * `audio_url` and `pdf_url`, todo reads a dispute's `attachment.url`, as
 * links to this operation, signed with HMAC-SHA256 and valid for 1 hour
 * (docs/decisions/0153, 0674). The signature is the credential: no bearer
 * token is needed.
 */
import { Schema } from "effect";
import { PlainNumberString } from "../pagination.ts";
import { API_PREFIX, type ErrorCase, endpoint } from "../endpoint.ts";
import { MessageEnvelope } from "../envelopes.ts";
import { errorCases } from "../errors.ts";
import { pathParams, queryParams } from "./request-parts.ts";

/** Lifetime of a pre-signed media link. */
export const MEDIA_URL_TTL_SECONDS = 3600;

export const mediaMessages = {
  redirect: "Redirecting to the media",
  invalidSignature: "Invalid media signature",
  expired: "Media link expired",
  notFound: "Media not found",
} as const;

const MediaParams = pathParams(
  Schema.Struct({
    key: Schema.String.annotations({
      description:
        "Media key: `<encrypted company id>.<encrypted followup id>.audio` (or `.pdf`), or " +
        "`<encrypted company id>.<encrypted todo id>.attachment` for a dispute's attachment",
    }),
  }),
);

export const MediaQuery = queryParams(
  Schema.Struct({
    expires: PlainNumberString(false, "must be a positive integer (Unix seconds)").pipe(Schema.int(), Schema.positive()).annotations({
      message: () => ({ message: "must be a positive integer (Unix seconds)", override: true }),
      jsonSchema: { type: "integer", minimum: 1, description: "Expiry, Unix seconds" },
    }),
    signature: Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_-]{1,128}$/)).annotations({
      message: () => ({ message: "must be a base64url signature", override: true }),
      jsonSchema: { type: "string", pattern: "^[A-Za-z0-9_-]{1,128}$", description: "HMAC-SHA256, base64url" },
    }),
  }),
);
export type MediaQuery = typeof MediaQuery.Type;

const api = (status: number, message: string, description: string): ErrorCase => ({
  status,
  message,
  description,
  envelope: "api",
});

export const getMedia = endpoint({
  operationId: "getMedia",
  method: "get",
  path: `${API_PREFIX}/media/{key}`,
  scope: null,
  tags: ["Media"],
  summary: "Follow a pre-signed media link",
  description:
    "Redirects (302) to the stored recording or document while the link's signature is valid and it has not " +
    "expired; a letter the platform printed itself is answered directly (200, `application/pdf`), and so is a " +
    "dispute's attachment (200, its type, `Content-Disposition: attachment` with its name). A changed key, expiry " +
    "or signature is 403; a link past its expiry is 410.",
  params: MediaParams,
  query: MediaQuery,
  success: {
    status: 302,
    description: "Redirect to the media; `Location` holds its address",
    schema: MessageEnvelope,
    headers: { "Referrer-Policy": "no-referrer" },
    replyHeaders: { Location: "The media's address in storage" },
  },
  documentReplies: [
    {
      status: 200,
      contentType: "application/pdf",
      description: "The letter's PDF, as it was printed and mailed, or a dispute's attachment that is a PDF",
    },
    { status: 200, contentType: "image/jpeg", description: "a dispute's attachment that is a JPEG image" },
    { status: 200, contentType: "image/png", description: "a dispute's attachment that is a PNG image" },
  ],
  errors: [
    errorCases.validation,
    api(403, mediaMessages.invalidSignature, "The key, expiry or signature was altered"),
    api(404, mediaMessages.notFound, "The followup or its media, or the todo or its attachment, no longer exists"),
    api(410, mediaMessages.expired, "The link is older than 1 hour; read the followup again for a fresh one"),
    errorCases.internal,
    errorCases.serviceUnavailable,
  ],
  rateLimit: "standard",
});
