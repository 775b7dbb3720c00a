/**
 * The receiver every provider callback route shares (docs/decisions/0630):
 * read the body under its limit, have the provider's module verify the
 * signature (403 and nothing written when it is missing or wrong), resolve
 * the company from the path or, for a platform-wide webhook, from the
 * signed payload's metadata, then store the callback's events and add the
 * company's `process_provider_events` job in one statement. It answers at
 * once; the worker applies the events.
 */
import { INVALID_SIGNATURE_MESSAGE, type ProviderCallback } from "@dc/contract";
import { storeProviderEvents } from "@dc/db";
import type { ReceivedCallback } from "@dc/providers";
import type { Context } from "koa";
import { AccessDenied, NotFound, UnsupportedMediaType } from "../http/api-error.ts";
import { publicBaseUrl } from "../http/public-base-url.ts";
import { mediaType, readRawBody } from "../http/read-body.ts";
import type { AppServices } from "../services.ts";

/**
 * A provider's verification of one request: its stored callbacks, or
 * undefined when the signature is missing or wrong (or the provider is not
 * configured, so nothing can be verified).
 */
export type VerifyCallback = (request: {
  readonly callback: ProviderCallback;
  /** The full URL the provider requested, as the platform gave it (`PUBLIC_BASE_URL` and the path). */
  readonly url: string;
  readonly headers: Context["headers"];
  readonly body: Buffer;
}) => ReadonlyArray<ReceivedCallback> | undefined;

export const receiveCallback =
  (services: AppServices, callback: ProviderCallback, verify: VerifyCallback) =>
  async (ctx: Context): Promise<void> => {
    if (mediaType(ctx.get("content-type")) !== callback.contentType) {
      throw new UnsupportedMediaType({ expected: callback.contentType });
    }
    const body = await readRawBody(ctx.req, callback.maxBytes);
    const url = `${publicBaseUrl(services, ctx)}${ctx.originalUrl}`;
    const received = verify({ callback, url, headers: ctx.headers, body });
    if (received === undefined) throw new AccessDenied({ message: INVALID_SIGNATURE_MESSAGE });
    const inPath: unknown = ctx.params["company_id"];
    const named = received.map((event) => event.companyPublicId ?? null);
    // A platform-wide webhook (Lob) names the company in the signed payload; one naming none is not ours: acknowledged, ignored.
    const publicId = typeof inPath === "string" ? inPath : named[0];
    const notFound = new NotFound({ message: "Company not found" });
    if (publicId === null || publicId === undefined) {
      if (typeof inPath !== "string") return answer(ctx, callback);
      throw notFound;
    }
    const companyId = services.ids.decode("company", publicId);
    if (companyId === undefined || named.some((name) => name !== null && name !== publicId)) throw notFound;
    const { company } = await storeProviderEvents(services.db, companyId, callback.provider, received);
    if (!company) throw notFound;
    answer(ctx, callback);
  };

const answer = (ctx: Context, callback: ProviderCallback): void => {
  ctx.status = callback.success.status;
  if (callback.success.contentType === "text/xml") {
    ctx.type = "text/xml";
    ctx.body = '<?xml version="1.0" encoding="UTF-8"?><Response/>';
  } else {
    ctx.body = "";
  }
};
