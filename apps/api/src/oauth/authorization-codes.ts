/**
 * Authorization codes: issued when a user approves, redeemed once at the
 * token endpoint. A code is consumed by a conditional update inside the
 * redeeming transaction, so of any number of concurrent redemptions exactly
 * one wins; a redemption that fails a check rolls back and leaves the code
 * unconsumed, except a failed PKCE check, which burns the code. A code presented after it was consumed revokes the grant made
 * from it (RFC 6749 4.1.2, 10.5): every access and refresh token of it stops.
 */
import {
  consumeAuthorizationCode,
  findActiveUserId,
  findAuthorizationCodeGrant,
  insertAuthorizationCode,
  insertGrant,
  linkAuthorizationCodeGrant,
  type OauthClient,
  revokeGrant,
} from "@dc/db";
import type { AppServices } from "../services.ts";
import type { ValidAuthorization } from "./authorization-request.ts";
import { AUTHORIZATION_MAX_SECONDS, type IssuedTokens, issueTokens } from "./issue-tokens.ts";
import { invalidGrant, invalidRequest } from "./oauth-errors.ts";
import { isCodeVerifier, verifierMatches } from "./pkce.ts";
import { hashSecret, newSecret, secretPrefixes } from "./secrets.ts";

/** Well under RFC 6749's ten-minute maximum: the client redeems at once. */
const AUTHORIZATION_CODE_SECONDS = 5 * 60;

/** Stores a new code for an approved request and returns it. */
export const issueAuthorizationCode = async (
  services: AppServices,
  authorization: ValidAuthorization,
  userId: number,
): Promise<string> => {
  const code = newSecret(secretPrefixes.authorizationCode);
  const now = services.clock.now();
  await insertAuthorizationCode(services.db, {
    companyId: authorization.client.company_id,
    clientPk: authorization.client.id,
    userId,
    codeHash: hashSecret(code),
    redirectUri: authorization.redirectUri,
    scopes: authorization.scopes,
    codeChallenge: authorization.codeChallenge ?? null,
    expiresAt: new Date(now.getTime() + AUTHORIZATION_CODE_SECONDS * 1000),
    now,
  });
  return code;
};

/**
 * What is wrong with `codeVerifier` for a code issued with `codeChallenge`,
 * if anything. A code that fails this is burned (RFC 9700 2.1.1 and 4.8: a
 * code is used once, all or nothing), so a guessed verifier gets one try.
 */
const pkceProblem = (codeChallenge: string | null, codeVerifier: string | undefined): string | undefined => {
  // RFC 9700 2.1.1: a verifier without a challenge is a PKCE downgrade attempt.
  if (codeChallenge === null) {
    return codeVerifier === undefined ? undefined : "code_verifier sent but the authorization request had no code_challenge";
  }
  if (codeVerifier === undefined) return "code_verifier is required: the authorization request had a code_challenge";
  return verifierMatches(codeVerifier, codeChallenge) ? undefined : "code_verifier does not match the code_challenge";
};

export interface Redemption {
  readonly code: string | undefined;
  readonly redirectUri: string | undefined;
  readonly codeVerifier: string | undefined;
}

const unreachable = (outcome: never): never => {
  throw new Error(`unexpected redemption outcome ${JSON.stringify(outcome)}`);
};

/** Exchanges a code for tokens, or throws the OAuth error (invalid_grant for every problem of the code). */
export const redeemAuthorizationCode = async (
  services: AppServices,
  client: OauthClient,
  redemption: Redemption,
): Promise<IssuedTokens> => {
  const { code, redirectUri, codeVerifier } = redemption;
  if (code === undefined) throw invalidRequest("Missing code");
  if (redirectUri === undefined) throw invalidRequest("Missing redirect_uri");
  if (codeVerifier !== undefined && !isCodeVerifier(codeVerifier)) {
    throw invalidRequest("code_verifier must be 43 to 128 unreserved characters");
  }
  const now = services.clock.now();
  const codeHash = hashSecret(code);

  const outcome = await services.db.transaction().execute(async (trx) => {
    const row = await consumeAuthorizationCode(trx, codeHash, now);
    if (row === undefined) {
      const consumed = await findAuthorizationCodeGrant(trx, codeHash);
      if (consumed !== undefined && consumed.grant_id !== null) {
        await revokeGrant(trx, consumed.grant_id, now);
        return { kind: "replayed" } as const;
      }
      return consumed === undefined ? ({ kind: "unknown" } as const) : ({ kind: "spent" } as const);
    }
    // Each failed check throws, which rolls the consumption back.
    if (row.client_pk !== client.id) throw invalidGrant("The code was issued to another client");
    if (row.expires_at.getTime() <= now.getTime()) throw invalidGrant("The code has expired");
    if (row.redirect_uri !== redirectUri) {
      throw invalidGrant("redirect_uri is not identical to the one used in the authorization request");
    }
    // A failed PKCE check returns rather than throws: the consumption commits, and the code is burned.
    const pkce = pkceProblem(row.code_challenge, codeVerifier);
    if (pkce !== undefined) return { kind: "burned", description: pkce } as const;
    const user = await findActiveUserId(trx, client.company_id, row.user_id);
    if (user === undefined) throw invalidGrant("The user who approved the request can no longer sign in");
    // The client may have lost scopes since the user approved.
    const scopes = row.scopes.filter((scope) => client.allowed_scopes.includes(scope));
    if (scopes.length === 0) throw invalidGrant("None of the approved scopes is still allowed for this client");

    const grantId = await insertGrant(trx, {
      companyId: client.company_id,
      clientPk: client.id,
      userId: row.user_id,
      grantType: "authorization_code",
      scopes,
      now,
    });
    await linkAuthorizationCodeGrant(trx, row.id, grantId);
    const tokens = await issueTokens(trx, {
      companyId: client.company_id,
      clientPk: client.id,
      grantId,
      scopes,
      withRefreshToken: true,
      notAfter: new Date(now.getTime() + AUTHORIZATION_MAX_SECONDS * 1000),
      now,
    });
    return { kind: "issued", tokens } as const;
  });

  if (outcome.kind === "replayed") {
    throw invalidGrant("The code was already used; every token issued from it has been revoked");
  }
  if (outcome.kind === "unknown") throw invalidGrant("Unknown authorization code");
  if (outcome.kind === "spent") throw invalidGrant("The code was already used");
  if (outcome.kind === "burned") throw invalidGrant(`${outcome.description}; the code can no longer be used`);
  return outcome.kind === "issued" ? outcome.tokens : unreachable(outcome);
};
