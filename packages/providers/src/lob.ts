/**
 * Lob's Print & Mail protocol for letters, as its API reference documents
 * it: the letter we create (`POST /v1/letters`, HTTP Basic auth with the API
 * key as user name, a multipart form with `to[...]`, `from`, the PDF as
 * `file`, `color`, `use_type`, `address_placement`, `metadata[...]`, and our
 * key in `Idempotency-Key`), the `Lob-Signature` of its webhooks (hex
 * HMAC-SHA256, keyed by the webhook's secret, of
 * `<Lob-Signature-Timestamp>.<raw body>`), and its letter events parsed
 * into the platform's delivery updates (docs/channels.md).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { DeliveryStatus, ProviderEvent, ReceivedCallback } from "./events.ts";

export const LOB_SIGNATURE_HEADER = "lob-signature";
export const LOB_TIMESTAMP_HEADER = "lob-signature-timestamp";
/** Lob's idempotency header: a retried create with the same key answers the first letter (kept 24 hours). */
export const LOB_IDEMPOTENCY_HEADER = "Idempotency-Key";
/** How far a webhook's timestamp may be from our clock before it is refused as a replay. */
export const LOB_SIGNATURE_TOLERANCE_MS = 5 * 60_000;

/** The metadata keys we set on a letter, which Lob echoes in its events. */
export const LOB_METADATA = { company: "dc_company", followup: "dc_followup" } as const;

/** An address as Lob takes it (`address_country`: ISO 3166 alpha-2). */
export interface LobAddress {
  readonly name: string | null;
  readonly company: string | null;
  readonly address_line1: string;
  readonly address_line2?: string;
  readonly address_city: string;
  readonly address_zip: string;
  readonly address_country: string;
}

export interface LobLetterInput {
  readonly to: LobAddress;
  /** The return address: a Lob address id (`adr_...`). */
  readonly from: string;
  readonly pdf: Uint8Array;
  readonly color: boolean;
  readonly description: string;
  /** Our ids, echoed in every event: the company's and the followup's public ids. */
  readonly metadata: Readonly<Record<string, string>>;
}

/**
 * The create-letter request: path, multipart body and its content type (the
 * caller adds Basic auth and the idempotency header). The letter is
 * operational mail, printed on a blank first page that carries Lob's
 * address block, so the PDF's own layout is left untouched.
 */
export const letterRequest = async (input: LobLetterInput) => {
  const form = new FormData();
  const address = (prefix: string, value: LobAddress) => {
    for (const [field, text] of Object.entries(value))
      if (typeof text === "string") form.append(`${prefix}[${field}]`, text);
  };
  form.append("description", input.description.slice(0, 255));
  address("to", input.to);
  form.append("from", input.from);
  form.append("file", new Blob([input.pdf], { type: "application/pdf" }), "letter.pdf");
  form.append("color", String(input.color));
  form.append("use_type", "operational");
  form.append("address_placement", "insert_blank_page");
  form.append("mail_type", "usps_first_class");
  for (const [key, value] of Object.entries(input.metadata)) form.append(`metadata[${key}]`, value);
  // Serialised by the platform's own fetch machinery, which picks the boundary.
  const serialised = new Request("http://lob.invalid/", { method: "POST", body: form });
  return {
    method: "POST" as const,
    path: "/v1/letters",
    contentType: serialised.headers.get("content-type") ?? "multipart/form-data",
    body: new Uint8Array(await serialised.arrayBuffer()),
  };
};

/** The `Authorization` header of every request to Lob: the API key as user name, no password. */
export const basicAuthorization = (apiKey: string): string => `Basic ${Buffer.from(`${apiKey}:`).toString("base64")}`;

/** What we keep of Lob's letter: its id (`ltr_...`). */
export const parseLetter = (json: unknown): { readonly id: string } | undefined => {
  if (typeof json !== "object" || json === null) return undefined;
  const { id } = json as Record<string, unknown>;
  return typeof id === "string" && id.startsWith("ltr_") ? { id } : undefined;
};

/** Lob's error body (`{error: {message, status_code, code}}`) as its code and message, or undefined. */
export const parseErrorBody = (json: unknown): { readonly code: string; readonly message: string } | undefined => {
  if (typeof json !== "object" || json === null) return undefined;
  const { error } = json as { error?: unknown };
  if (typeof error !== "object" || error === null) return undefined;
  const { code, message, status_code: status } = error as Record<string, unknown>;
  return {
    code: typeof code === "string" ? code : String(status ?? "error"),
    message: typeof message === "string" ? message : "",
  };
};

/** `Lob-Signature`: hex HMAC-SHA256 of `<timestamp>.<raw body>`, keyed by the webhook's secret. */
export const lobSignature = (secret: string, timestamp: string, body: Uint8Array | string): string =>
  createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest("hex");

/** A timestamp header as milliseconds: Lob sends Unix milliseconds; plain seconds are read too. */
const timestampMs = (timestamp: string): number | undefined => {
  if (!/^\d{1,16}$/.test(timestamp)) return undefined;
  const value = Number(timestamp);
  return value < 1e11 ? value * 1000 : value;
};

export type LobVerification = "valid" | "invalid" | "stale";

/**
 * Checks a webhook: the signature first (constant time), then the
 * timestamp, which must lie within `LOB_SIGNATURE_TOLERANCE_MS` of `now`: an
 * old request signed correctly is a replay.
 */
export const verifyLobSignature = (
  secret: string,
  headers: { readonly signature: string | undefined; readonly timestamp: string | undefined },
  body: Uint8Array,
  now: Date,
): LobVerification => {
  const { signature, timestamp } = headers;
  if (signature === undefined || timestamp === undefined || !/^[0-9a-f]{64}$/i.test(signature)) return "invalid";
  const expected = Buffer.from(lobSignature(secret, timestamp, body), "hex");
  if (!timingSafeEqual(expected, Buffer.from(signature, "hex"))) return "invalid";
  const at = timestampMs(timestamp);
  if (at === undefined) return "invalid";
  return Math.abs(now.getTime() - at) <= LOB_SIGNATURE_TOLERANCE_MS ? "valid" : "stale";
};

interface LobEvent {
  readonly id: string;
  readonly eventType: string;
  readonly letterId: string | null;
  readonly metadata: Readonly<Record<string, unknown>>;
}

const eventOf = (payload: unknown): LobEvent | undefined => {
  if (typeof payload !== "object" || payload === null) return undefined;
  const { id, event_type: type, body, reference_id: reference } = payload as Record<string, unknown>;
  if (typeof id !== "string" || id === "") return undefined;
  const eventType = typeof type === "object" && type !== null ? (type as { id?: unknown }).id : type;
  if (typeof eventType !== "string") return undefined;
  const resource = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  const letterId =
    typeof resource["id"] === "string" ? resource["id"] : typeof reference === "string" ? reference : null;
  const metadata = resource["metadata"];
  return {
    id,
    eventType,
    letterId,
    metadata: typeof metadata === "object" && metadata !== null ? (metadata as Record<string, unknown>) : {},
  };
};

/**
 * The stored form of a Lob event, keyed by Lob's event id (`evt_...`), so a
 * retried delivery or a replay stores nothing new, with the company public
 * id our metadata carries. Undefined for a body that is no Lob event.
 */
export const receivedCallback = (payload: unknown): ReceivedCallback | undefined => {
  const event = eventOf(payload);
  if (event === undefined) return undefined;
  const company = event.metadata[LOB_METADATA.company];
  return { eventKey: event.id, payload, companyPublicId: typeof company === "string" ? company : null };
};

/** Letter events that settle a letter (docs/channels.md); the tracking steps in between change nothing. */
const settling: Readonly<Record<string, { readonly status: DeliveryStatus; readonly error: string | null }>> = {
  "letter.delivered": { status: "delivered", error: null },
  "letter.returned_to_sender": { status: "failed", error: "returned to sender" },
  "letter.deleted": { status: "failed", error: "cancelled before printing" },
  "letter.failed": { status: "failed", error: "failed to render or print" },
  "letter.rejected": { status: "failed", error: "rejected by Lob" },
};

/** A stored Lob event as the platform's event. */
export const parseEvent = (payload: unknown): ProviderEvent => {
  const event = eventOf(payload);
  if (event === undefined) return { _tag: "Ignored", reason: "not a Lob event" };
  if (event.letterId === null) return { _tag: "Ignored", reason: `${event.eventType} without a letter id` };
  const settles = settling[event.eventType];
  if (settles === undefined) return { _tag: "Ignored", reason: `tracking step ${event.eventType}` };
  return {
    _tag: "DeliveryUpdate",
    providerMessageId: event.letterId,
    status: settles.status,
    errorCode: settles.status === "failed" ? event.eventType : null,
    errorMessage: settles.error,
  };
};
