/**
 * PKCE (RFC 7636) with the S256 method only: `plain` would hand the verifier
 * to anyone who sees the authorization request (RFC 9700 2.1.1).
 */
import { createHash, timingSafeEqual } from "node:crypto";

/** The code challenge methods accepted (the metadata's `code_challenge_methods_supported`). */
export const codeChallengeMethods: ReadonlyArray<string> = ["S256"];

/** BASE64URL(SHA-256(verifier)) is always 43 characters. */
export const isCodeChallenge = (value: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(value);

/** RFC 7636 4.1: 43 to 128 unreserved characters. */
export const isCodeVerifier = (value: string): boolean => /^[A-Za-z0-9._~-]{43,128}$/.test(value);

/** The S256 challenge of a verifier. */
export const s256Challenge = (verifier: string): string =>
  createHash("sha256").update(verifier, "ascii").digest("base64url");

/** Constant-time check of a verifier against the stored S256 challenge. */
export const verifierMatches = (verifier: string, challenge: string): boolean => {
  if (!isCodeVerifier(verifier)) return false;
  const expected = Buffer.from(challenge, "ascii");
  const actual = Buffer.from(s256Challenge(verifier), "ascii");
  return expected.byteLength === actual.byteLength && timingSafeEqual(expected, actual);
};
