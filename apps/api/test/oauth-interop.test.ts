/**
 * Interoperability with an independent OAuth client library (oauth4webapi):
 * client_credentials with form and Basic authentication, the
 * authorization-code flow with PKCE (pages driven over HTTP), refresh with
 * rotation, revocation, and the library's view of our error responses.
 */
import * as oauth from "oauth4webapi";
import { describe, expect, it } from "vitest";
import { startTestApi } from "./support/harness.ts";
import { authorizeWithPassword, registerClient } from "./support/oauth-flow.ts";

const t = await startTestApi();
const acme = await t.tenant("Acme Collections");
const redirectUri = "https://ledger-sync.example/oauth/callback";
const registered = await registerClient(t, acme, { redirectUris: [redirectUri] });

const as: oauth.AuthorizationServer = {
  issuer: t.api.url,
  authorization_endpoint: `${t.api.url}/oauth/authorize`,
  token_endpoint: `${t.api.url}/oauth/token`,
  revocation_endpoint: `${t.api.url}/oauth/revoke`,
  code_challenge_methods_supported: ["S256"],
};
const client: oauth.Client = { client_id: registered.client_id };
// The test server is plain http on 127.0.0.1; production is https only.
const insecure = { [oauth.allowInsecureRequests]: true } as const;

const profileStatus = async (accessToken: string) =>
  (await t.get("/external-api/v1/company/profile", accessToken)).status;

/** Runs the authorization-code flow with PKCE the way oauth4webapi expects, and returns the token response. */
const authorizeWithPkce = async (clientAuth: oauth.ClientAuth, scope = "company:read debts:read") => {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const location = await authorizeWithPassword(
    t,
    {
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: redirectUri,
      scope,
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
    },
    { email: acme.user_email, password: acme.user_password },
  );
  const parameters = oauth.validateAuthResponse(as, client, location, state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    clientAuth,
    parameters,
    redirectUri,
    verifier,
    insecure,
  );
  return oauth.processAuthorizationCodeResponse(as, client, response);
};

describe("oauth4webapi against the running server", () => {
  it("client_credentials with client_secret_post: no refresh token, the requested scope", async () => {
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      client,
      oauth.ClientSecretPost(registered.client_secret),
      { scope: "company:read" },
      insecure,
    );
    const result = await oauth.processClientCredentialsResponse(as, client, response);
    expect(result.token_type).toBe("bearer");
    expect(result.expires_in).toBe(3600);
    expect(result.scope).toBe("company:read");
    expect(result.refresh_token).toBeUndefined();
    expect(await profileStatus(result.access_token)).toBe(200);
  });

  it("client_credentials with client_secret_basic", async () => {
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      client,
      oauth.ClientSecretBasic(registered.client_secret),
      {},
      insecure,
    );
    const result = await oauth.processClientCredentialsResponse(as, client, response);
    expect(result.scope).toBe("debts:read company:read followups:read");
  });

  it("authorization code with PKCE, then refresh with rotation", async () => {
    const clientAuth = oauth.ClientSecretBasic(registered.client_secret);
    const tokens = await authorizeWithPkce(clientAuth);
    expect(tokens.scope).toBe("company:read debts:read");
    expect(tokens.refresh_token).toMatch(/^dcrt_/);
    expect(await profileStatus(tokens.access_token)).toBe(200);

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, insecure),
    );
    expect(refreshed.refresh_token).toMatch(/^dcrt_/);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(refreshed.scope).toBe("company:read debts:read");
    expect(await profileStatus(refreshed.access_token)).toBe(200);

    // The rotated token is spent: oauth4webapi surfaces invalid_grant, and the whole family is revoked.
    const reuse = await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, insecure);
    const failure = await oauth.processRefreshTokenResponse(as, client, reuse).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(oauth.ResponseBodyError);
    expect((failure as oauth.ResponseBodyError).error).toBe("invalid_grant");
    expect(await profileStatus(refreshed.access_token)).toBe(401);
  });

  it("narrows scope on refresh", async () => {
    const clientAuth = oauth.ClientSecretPost(registered.client_secret);
    const tokens = await authorizeWithPkce(clientAuth);
    const response = await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, {
      ...insecure,
      additionalParameters: { scope: "debts:read" },
    });
    const narrowed = await oauth.processRefreshTokenResponse(as, client, response);
    expect(narrowed.scope).toBe("debts:read");
    expect(await profileStatus(narrowed.access_token)).toBe(403);
  });

  it("revokes a refresh token (RFC 7009): its access tokens stop working too", async () => {
    const clientAuth = oauth.ClientSecretPost(registered.client_secret);
    const tokens = await authorizeWithPkce(clientAuth);
    const response = await oauth.revocationRequest(as, client, clientAuth, tokens.refresh_token!, insecure);
    await expect(oauth.processRevocationResponse(response)).resolves.toBeUndefined();
    expect(await profileStatus(tokens.access_token)).toBe(401);
    const refresh = await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, insecure);
    await expect(oauth.processRefreshTokenResponse(as, client, refresh)).rejects.toMatchObject({
      error: "invalid_grant",
    });
  });

  it("sees a wrong secret as invalid_client with a Basic challenge", async () => {
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      client,
      oauth.ClientSecretBasic("dcs_wrong"),
      {},
      insecure,
    );
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/^Basic /);
    expect(await response.clone().json()).toEqual({
      error: "invalid_client",
      error_description: "Client authentication failed",
    });
    // oauth4webapi reports the challenge of a 401 before its body (RFC 6749 5.2).
    const failure = await oauth.processClientCredentialsResponse(as, client, response).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    expect((failure as oauth.WWWAuthenticateChallengeError).cause[0]?.scheme).toBe("basic");
  });
});
