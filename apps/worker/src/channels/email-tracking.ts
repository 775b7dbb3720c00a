/**
 * The tracking parts of a collection e-mail (docs/decisions/0655-0658):
 * the open pixel's URL, each link's tracked URL, the unsubscribe URL (the
 * body's link and the `List-Unsubscribe` header, one-click per RFC 8058),
 * the bounce token (the provider metadata header) and the envelope sender
 * that carries it (`bounces+<token>@domain`, VERP), all signed with the
 * platform's key and served by the api on `PUBLIC_BASE_URL`.
 */
import { emailTrackingTokens } from "@dc/crypto";
import { emailTrackingPaths } from "@dc/contract";

export interface EmailTrackingSettings {
  /** `PUBLIC_BASE_URL`: the api's external origin, no trailing slash. */
  readonly baseUrl: string;
  /** `ID_ENCRYPTION_KEY`: the api verifies with the same. */
  readonly secret: Uint8Array;
  /** `BOUNCE_ADDRESS`: the mailbox the bounce receiver answers for; unset, bounces go to `MAIL_FROM`. */
  readonly bounceAddress: string | undefined;
}

export interface TrackedParts {
  readonly pixelUrl: string;
  readonly linkUrl: (target: string) => string;
  readonly unsubscribeUrl: string;
  readonly bounceToken: string;
  /** The envelope sender (Return-Path) carrying the bounce token, or undefined without `BOUNCE_ADDRESS`. */
  readonly envelopeFrom: string | undefined;
}

/** `local+token@domain` for `local@domain`. */
export const verpAddress = (bounceAddress: string, token: string): string => {
  const at = bounceAddress.lastIndexOf("@");
  return `${bounceAddress.slice(0, at)}+${token}${bounceAddress.slice(at)}`;
};

/** The tracking parts of the e-mail of one followup. */
export const trackedParts = (
  settings: EmailTrackingSettings,
  email: { readonly companyId: number; readonly followupId: number },
): TrackedParts => {
  const tokens = emailTrackingTokens(settings.secret);
  const url = (path: string, token: string) => `${settings.baseUrl}${path}?t=${token}`;
  const bounceToken = tokens.sign("bounce", email);
  return {
    pixelUrl: url(emailTrackingPaths.open, tokens.sign("open", email)),
    linkUrl: (target) => url(emailTrackingPaths.click, tokens.sign("click", email, target)),
    unsubscribeUrl: url(emailTrackingPaths.unsubscribe, tokens.sign("unsubscribe", email)),
    bounceToken,
    envelopeFrom: settings.bounceAddress === undefined ? undefined : verpAddress(settings.bounceAddress, bounceToken),
  };
};
