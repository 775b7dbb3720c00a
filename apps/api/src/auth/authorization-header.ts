/**
 * The credentials of an `Authorization` header for one scheme: `<scheme>
 * 1*SP <token68>` (RFC 9110 11.4 and 11.6.2), the scheme name in any case
 * (RFC 9110 11.1). Bearer tokens (RFC 6750 2.1, whose b64token is token68)
 * and HTTP Basic client credentials (RFC 7617) are both read here.
 */

import type { IncomingMessage } from "node:http";

const patterns = {
  Bearer: /^Bearer +([A-Za-z0-9._~+/-]+=*)$/i,
  Basic: /^Basic +([A-Za-z0-9._~+/-]+=*)$/i,
} as const;

/** The token68 of `header` when it is of `scheme`; undefined when absent, of another scheme, or malformed. */
export const schemeCredentials = (header: string | undefined, scheme: keyof typeof patterns): string | undefined =>
  patterns[scheme].exec(header ?? "")?.[1];

/**
 * The request's Authorization header, as every reader of it must take it.
 * Sent on two field lines it is both, joined as a list would be (RFC 9110
 * 5.3), which no scheme's syntax admits, so it is refused as malformed.
 * Node's parser keeps only the first of two Authorization lines, while a
 * proxy in front may read the last: the two would see different callers.
 */
export const authorizationHeader = (request: IncomingMessage): string | undefined =>
  request.headersDistinct["authorization"]?.join(", ") || undefined;
