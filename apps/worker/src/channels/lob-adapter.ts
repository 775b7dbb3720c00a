/**
 * Letters (`postmail`) through Lob (docs/decisions/0650, docs/channels.md):
 * each message's letter is drawn to a PDF (letter-pdf.ts), stored under its
 * attempt's key (`stored_objects`, what `pdf_url` serves), and created at
 * Lob with our idempotency key, our ids in its metadata, through the
 * providers' HTTP client (limits, retries with backoff). Lob's answer is
 * the outcome `sent` with the letter id; its webhook events later move the
 * followup to `delivered` or `failed`. A debt without a complete address
 * fails for good before anything is drawn or sent.
 *
 * Lob asked for a letter by the attempt's key (in its metadata) answers
 * the letter it made under it. The HTTP client repeats a create under the
 * same key, which Lob honours, but the engine's next attempt has a new key:
 * so a create that fails after a try Lob may have acted on (its answer
 * lost, or a 5xx other than 503) is looked up before it is answered a
 * failure. Found is `sent`; none is the failure (retryable or not, as Lob
 * answered); a lookup that fails too fails the send for good, `lob outcome
 * unknown`, rather than risk a second letter. After a crash, `lookup` asks
 * the same: found is `sent`, none is null (never received).
 */
import { type Db, type EventIds, storeObject } from "@dc/db";
import { Lob } from "@dc/providers";
import type { ChannelAdapter, OutboundMessage, Outcome } from "./channel-adapter.ts";
import { INCOMPLETE_ADDRESS, missingAddressParts } from "./letter.ts";
import { renderLetterPdf } from "./letter-pdf.ts";
import type { ProviderHttp } from "./provider-http.ts";
import type { Language } from "./render-context.ts";

export interface LobChannelSettings {
  readonly baseUrl: string;
  readonly apiKey: string;
  /** The return address saved in Lob (`adr_...`). */
  readonly fromAddress: string;
  /** Print in colour; default black and white. */
  readonly color?: boolean;
}

/** The metadata key holding the attempt's idempotency key, which `lookup` searches by. */
const SEND_KEY = "dc_send";

const failed = (retryable: boolean, error: string): Outcome => ({ status: "failed", retryable, error });

/** The stored object of an attempt's letter. */
export const letterObjectKey = (idempotencyKey: string): string => `letters/${idempotencyKey}.pdf`;

/** What Lob holds under an attempt's key: its letter as the outcome `sent`, null for none, or why Lob could not say. */
type Found = { readonly ok: true; readonly letter: Outcome | null } | { readonly ok: false; readonly reason: string };

const failureOf = (response: { status: number | null; body: unknown; reason: string; permanent: boolean }): Outcome => {
  const error = Lob.parseErrorBody(response.body);
  const detail = error === undefined ? response.reason : `${response.reason}: ${error.code}: ${error.message}`;
  return failed(!response.permanent, `lob ${detail}`);
};

export const lobAdapter = (db: Db, ids: EventIds, settings: LobChannelSettings, http: ProviderHttp): ChannelAdapter => {
  const account = `lob:${settings.apiKey.slice(0, 12)}`;
  const headers = { Authorization: Lob.basicAuthorization(settings.apiKey) };

  const sendOne = async (message: OutboundMessage): Promise<Outcome> => {
    const letter = message.letter;
    if (letter === undefined) return failed(false, `${INCOMPLETE_ADDRESS}: the message carries no postal address`);
    const missing = missingAddressParts(letter.to);
    if (missing.length > 0) return failed(false, `${INCOMPLETE_ADDRESS}: missing ${missing.join(", ")}`);
    const { to } = letter;
    const pdf = await renderLetterPdf({
      parts: letter,
      subject: message.subject,
      body: message.body,
      language: (message.language === "fr" ? "fr" : "en") satisfies Language,
      at: message.at,
    });
    const key = letterObjectKey(message.idempotencyKey);
    await storeObject(db, {
      companyId: message.companyId,
      key,
      followupId: message.followupId,
      contentType: "application/pdf",
      body: pdf,
    });
    const request = await Lob.letterRequest({
      to: {
        name: to.name,
        company: to.company,
        address_line1: to.line1!,
        address_city: to.city!,
        address_zip: to.postalCode!,
        address_country: to.country!,
      },
      from: settings.fromAddress,
      pdf,
      color: settings.color ?? false,
      description: `${letter.company}: ${message.subject ?? "letter"}`,
      metadata: {
        [Lob.LOB_METADATA.company]: ids.encode("company", message.companyId),
        [Lob.LOB_METADATA.followup]: ids.encode("followup", message.followupId),
        [SEND_KEY]: message.idempotencyKey,
      },
    });
    const response = await http.request({
      account,
      method: request.method,
      url: `${settings.baseUrl}${request.path}`,
      headers: { ...headers, "Content-Type": request.contentType },
      body: request.body,
      idempotency: { header: Lob.LOB_IDEMPOTENCY_HEADER, key: message.idempotencyKey },
    });
    if (!response.ok) {
      if (!response.mayHaveActed) return failureOf(response);
      const found = await find(message);
      if (found.ok) return found.letter ?? failureOf(response);
      return failed(
        false,
        `lob outcome unknown: the create may have been accepted (${response.reason}) and the lookup failed (${found.reason}); not sent again`,
      );
    }
    const created = Lob.parseLetter(response.body);
    if (created === undefined) return failed(true, "lob answered without a letter id");
    return { status: "sent", providerMessageId: created.id, pdfObjectKey: key };
  };

  const find = async (message: OutboundMessage): Promise<Found> => {
    const query = new URLSearchParams({ limit: "1", [`metadata[${SEND_KEY}]`]: message.idempotencyKey });
    const response = await http.request({
      account,
      method: "GET",
      url: `${settings.baseUrl}/v1/letters?${query.toString()}`,
      headers,
    });
    if (!response.ok) return { ok: false, reason: response.reason };
    const data = (response.body as { data?: unknown } | null)?.data;
    const found = Array.isArray(data) ? Lob.parseLetter(data[0]) : undefined;
    return {
      ok: true,
      letter:
        found === undefined
          ? null
          : { status: "sent", providerMessageId: found.id, pdfObjectKey: letterObjectKey(message.idempotencyKey) },
    };
  };

  return {
    send: (messages) => Promise.all(messages.map(sendOne)),
    lookup: async (message) => {
      const found = await find(message);
      if (!found.ok) throw new Error(`lob lookup failed: ${found.reason}`);
      return found.letter;
    },
  };
};
