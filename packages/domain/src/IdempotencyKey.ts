/**
 * The `Idempotency-Key` request header of the api's creating operations
 * (docs/decisions/0024): what a key may be, shared by the api, which reads
 * it, and the client, which generates one per call. The header follows the
 * IETF draft (draft-ietf-httpapi-idempotency-key-header), whose value is a
 * Structured Field string (`"..."`); a bare token, as most payment APIs take
 * it, is accepted as well.
 */

/** Longest key, in characters. */
export const maxLength = 255;

/** Hours a key and the answer it recorded are kept: a retry within them gets that answer again. */
export const retentionHours = 24;

/** What the header must hold, for the 400 that names it. */
export const requirement = `must be 1 to ${maxLength} visible ASCII characters, bare or as a quoted string`;

/** Visible ASCII without `"` and `\`, which only a quoted string may carry (escaped). */
const BARE = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
/** A Structured Field string (RFC 8941 3.3.3): printable ASCII, `"` and `\` escaped. */
const QUOTED = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/;

/**
 * The key a header value names, or `undefined` when the value is not one.
 * Surrounding spaces are dropped; a quoted string is unescaped; the key must
 * then be 1 to `maxLength` characters.
 *
 * @example
 * parse('"8e03978e-40d5-43e8-bc93-6894a57f9324"') // "8e03978e-40d5-43e8-bc93-6894a57f9324"
 * parse("order-1042") // "order-1042"
 * parse("two words") // undefined
 */
export const parse = (headerValue: string): string | undefined => {
  const value = headerValue.trim();
  const quoted = QUOTED.exec(value);
  const key = quoted === null ? (BARE.test(value) ? value : undefined) : quoted[1]!.replace(/\\(["\\])/g, "$1");
  return key !== undefined && key.length >= 1 && key.length <= maxLength ? key : undefined;
};
