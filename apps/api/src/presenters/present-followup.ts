/**
 * Turns a followups row into the contract's Followup: the shared fields of
 * `@dc/db` (the same as the followup.* webhook payloads), plus the media keys
 * replaced by pre-signed links (1 hour).
 */
import type { Endpoints } from "@dc/contract";
import { type FollowupResourceRow, presentFollowupRow } from "@dc/db";
import type { Context } from "koa";
import { publicBaseUrl } from "../http/public-base-url.ts";
import { mediaSigner } from "../media/signed-urls.ts";
import type { AppServices } from "../services.ts";

export type FollowupView = Endpoints["getFollowup"]["success"]["schema"]["Type"]["data"];

/** Builds the presenter of one request (one clock reading, one base URL for every row). */
export const followupPresenter = (services: AppServices, ctx: Context) => {
  const signer = mediaSigner(services.config.idEncryptionKey, services.ids);
  const baseUrl = publicBaseUrl(services, ctx);
  const now = services.clock.now();
  return (row: FollowupResourceRow): FollowupView => {
    const media = (kind: "audio" | "pdf") =>
      signer.sign(baseUrl, { companyId: row.company_id, followupId: row.id, kind }, now);
    const audio = row.audio_object_key === null ? undefined : media("audio");
    const pdf = row.pdf_object_key === null ? undefined : media("pdf");
    const expiresAt = audio?.expiresAt ?? pdf?.expiresAt;
    return {
      ...presentFollowupRow(services.ids, row, (date) => date),
      audio_url: audio?.url ?? null,
      pdf_url: pdf?.url ?? null,
      ...(expiresAt === undefined ? {} : { media_urls_expire_at: expiresAt }),
    };
  };
};
