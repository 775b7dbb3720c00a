/**
 * The authorization_code grant against the attacks of RFC 6749 section 10,
 * RFC 6819 and RFC 9700: replay (and revocation of what the code issued),
 * concurrent redemption, a code of another client, expiry, redirect URI
 * tampering, PKCE downgrade and mismatch, bad client credentials.
 */
import { describe, expect, it } from "vitest";
import { s256Challenge } from "../src/oauth/pkce.ts";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { authorizationCode, registerClient } from "./support/oauth-flow.ts";

const t = await startTestApi();
const acme = await t.tenant("Acme Collections");
const redirectUri = "https://ledger-sync.example/oauth/callback";
const client = await registerClient(t, acme, {
  redirectUris: [redirectUri, "https://ledger-sync.example/cb?tenant=acme"],
});
const otherClient = await registerClient(t, acme, { redirectUris: [redirectUri], name: "Other integration" });
const verifier = "a-long-enough-pkce-verifier-0123456789-abcdefghijklmnop";

const exchange = (
  code: string,
  extra: Record<string, string> = {},
  as: { client_id: string; client_secret: string } = client,
) =>
  t.tokenResponse({
    grant_type: "authorization_code",
    client_id: as.client_id,
    client_secret: as.client_secret,
    code,
    redirect_uri: redirectUri,
    ...extra,
  });

const expectOAuthError = async (response: Response, status: number, error: string) => {
  expect(response.status).toBe(status);
  expect(response.headers.get("cache-control")).toBe("no-store");
  const body = await expectContract<{ error: string; error_description: string }>(response, "post", "/oauth/token");
  expect(body.error).toBe(error);
  expect(typeof body.error_description).toBe("string");
  return body;
};

const newCode = (extra: Record<string, string> = {}) => authorizationCode(t, acme, client, redirectUri, extra);
const profileStatus = async (token: string) => (await t.get("/external-api/v1/company/profile", token)).status;

describe("authorization_code", () => {
  it("issues access and refresh tokens of the approved scope, with no-store", async () => {
    const response = await exchange(await newCode({ scope: "company:read" }));
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const body = await expectContract<Record<string, unknown>>(response, "post", "/oauth/token");
    expect(Object.keys(body).sort()).toEqual(["access_token", "expires_in", "refresh_token", "scope", "token_type"]);
    expect(body).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "company:read" });
    const grant = await t.db.selectFrom("oauth_grants").selectAll().orderBy("id", "desc").executeTakeFirstOrThrow();
    expect(grant).toMatchObject({ grant_type: "authorization_code", scopes: ["company:read"], revoked_at: null });
    expect(grant.user_id).not.toBeNull();
  });

  it("refuses a replayed code and revokes every token issued from it", async () => {
    const code = await newCode();
    const first = (await (await exchange(code)).json()) as { access_token: string; refresh_token: string };
    expect(await profileStatus(first.access_token)).toBe(200);
    const replay = await expectOAuthError(await exchange(code), 400, "invalid_grant");
    expect(replay.error_description).toMatch(/already used/);
    expect(await profileStatus(first.access_token)).toBe(401);
    await expectOAuthError(
      await t.tokenResponse({
        grant_type: "refresh_token",
        client_id: client.client_id,
        client_secret: client.client_secret,
        refresh_token: first.refresh_token,
      }),
      400,
      "invalid_grant",
    );
  });

  it("lets exactly one of 10 concurrent redemptions of one code succeed", async () => {
    const code = await newCode();
    const responses = await Promise.all(Array.from({ length: 10 }, () => exchange(code)));
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([200, ...Array<number>(9).fill(400)]);
    const winner = responses.find((response) => response.status === 200)!;
    const tokens = (await winner.json()) as { access_token: string };
    for (const loser of responses.filter((response) => response.status === 400)) {
      expect(((await loser.json()) as { error: string }).error).toBe("invalid_grant");
    }
    // The other nine were replays: the winner's tokens are revoked with the grant.
    expect(await profileStatus(tokens.access_token)).toBe(401);
    const grants = await t.db
      .selectFrom("oauth_authorization_codes")
      .select("grant_id")
      .where("grant_id", "is not", null)
      .execute();
    expect(new Set(grants.map((row) => row.grant_id)).size).toBe(grants.length);
  });

  it("refuses a code of another client, without spending it", async () => {
    const code = await newCode();
    const body = await expectOAuthError(await exchange(code, {}, otherClient), 400, "invalid_grant");
    expect(body.error_description).toBe("The code was issued to another client");
    expect((await exchange(code)).status).toBe(200);
  });

  it("refuses an expired code (5 minutes)", async () => {
    const fresh = await newCode();
    const stale = await newCode();
    t.clock.advance(299_000);
    expect((await exchange(fresh)).status).toBe(200);
    t.clock.advance(1_000);
    const body = await expectOAuthError(await exchange(stale), 400, "invalid_grant");
    expect(body.error_description).toBe("The code has expired");
  });

  it("requires the identical redirect_uri: one character off, an added query, or none at all", async () => {
    const code = await newCode();
    for (const tampered of [
      `${redirectUri}x`,
      redirectUri.replace("callback", "callbacK"),
      `${redirectUri}?next=/`,
      `${redirectUri}/`,
    ]) {
      await expectOAuthError(await exchange(code, { redirect_uri: tampered }), 400, "invalid_grant");
    }
    await expectOAuthError(
      await t.tokenResponse({
        grant_type: "authorization_code",
        client_id: client.client_id,
        client_secret: client.client_secret,
        code,
      }),
      400,
      "invalid_request",
    );
    expect((await exchange(code)).status).toBe(200);
  });

  it("keeps a registered redirect URI's own query when redirecting", async () => {
    const code = await authorizationCode(t, acme, client, "https://ledger-sync.example/cb?tenant=acme");
    expect((await exchange(code, { redirect_uri: "https://ledger-sync.example/cb?tenant=acme" })).status).toBe(200);
  });
});

describe("PKCE (RFC 7636, RFC 9700 2.1.1)", () => {
  const challenge = { code_challenge: s256Challenge(verifier), code_challenge_method: "S256" };

  it("accepts the right verifier", async () => {
    expect((await exchange(await newCode(challenge), { code_verifier: verifier })).status).toBe(200);
  });

  it("refuses a missing verifier when a challenge was sent (downgrade), and burns the code (RFC 9700: one use)", async () => {
    const code = await newCode(challenge);
    const body = await expectOAuthError(await exchange(code), 400, "invalid_grant");
    expect(body.error_description).toMatch(/code_verifier is required.*can no longer be used/);
    const retry = await expectOAuthError(await exchange(code, { code_verifier: verifier }), 400, "invalid_grant");
    expect(retry.error_description).toBe("The code was already used");
  });

  it("refuses a wrong verifier, and burns the code: the right one gets nothing after it", async () => {
    const code = await newCode(challenge);
    await expectOAuthError(await exchange(code, { code_verifier: `${verifier}x` }), 400, "invalid_grant");
    const retry = await expectOAuthError(await exchange(code, { code_verifier: verifier }), 400, "invalid_grant");
    expect(retry.error_description).toBe("The code was already used");
  });

  it("refuses a verifier when no challenge was sent, and burns the code", async () => {
    const code = await newCode();
    const body = await expectOAuthError(await exchange(code, { code_verifier: verifier }), 400, "invalid_grant");
    expect(body.error_description).toMatch(/no code_challenge/);
    await expectOAuthError(await exchange(code), 400, "invalid_grant");
  });

  it("refuses a malformed verifier as invalid_request", async () => {
    await expectOAuthError(
      await exchange(await newCode(challenge), { code_verifier: "short" }),
      400,
      "invalid_request",
    );
  });
});

describe("client authentication at the token endpoint", () => {
  it("refuses a wrong secret (form) with 401 invalid_client and the Basic challenge every 401 carries", async () => {
    const code = await newCode();
    const response = await exchange(code, { client_secret: `${client.client_secret}x` });
    await expectOAuthError(response, 401, "invalid_client");
    expect(response.headers.get("www-authenticate")).toBe('Basic realm="oauth", charset="UTF-8"');
  });

  it("answers a wrong Basic secret with WWW-Authenticate", async () => {
    const basic = Buffer.from(`${client.client_id}:wrong`).toString("base64");
    const response = await t.tokenResponse({ grant_type: "client_credentials" }, { authorization: `Basic ${basic}` });
    await expectOAuthError(response, 401, "invalid_client");
    expect(response.headers.get("www-authenticate")).toBe('Basic realm="oauth", charset="UTF-8"');
  });

  it("accepts Basic, and refuses Basic with a form secret or a differing client_id", async () => {
    const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString("base64")}`;
    const code = await newCode();
    const form = { grant_type: "authorization_code", code, redirect_uri: redirectUri };
    await expectOAuthError(
      await t.tokenResponse({ ...form, client_secret: client.client_secret }, { authorization: basic }),
      400,
      "invalid_request",
    );
    await expectOAuthError(
      await t.tokenResponse({ ...form, client_id: otherClient.client_id }, { authorization: basic }),
      400,
      "invalid_request",
    );
    expect((await t.tokenResponse({ ...form, client_id: client.client_id }, { authorization: basic })).status).toBe(
      200,
    );
  });

  it("refuses a revoked client, and its tokens stop working at once", async () => {
    const victim = await registerClient(t, acme, { redirectUris: [redirectUri], name: "Soon revoked" });
    const code = await authorizationCode(t, acme, victim, redirectUri);
    const spare = await authorizationCode(t, acme, victim, redirectUri);
    const tokens = (await (await exchange(code, {}, victim)).json()) as { access_token: string; refresh_token: string };
    expect(await profileStatus(tokens.access_token)).toBe(200);
    await t.db
      .updateTable("oauth_clients")
      .set({ revoked_at: t.clock.now() })
      .where("client_id", "=", victim.client_id)
      .execute();
    expect(await profileStatus(tokens.access_token)).toBe(401);
    await expectOAuthError(await exchange(spare, {}, victim), 401, "invalid_client");
    await expectOAuthError(
      await t.tokenResponse({
        grant_type: "refresh_token",
        client_id: victim.client_id,
        client_secret: victim.client_secret,
        refresh_token: tokens.refresh_token,
      }),
      401,
      "invalid_client",
    );
  });

  it("expires the access token after 3600 s", async () => {
    const tokens = (await (await exchange(await newCode())).json()) as { access_token: string };
    t.clock.advance(3_599_000);
    expect(await profileStatus(tokens.access_token)).toBe(200);
    t.clock.advance(1_000);
    expect(await profileStatus(tokens.access_token)).toBe(401);
  });

  it("answers an unknown grant type and a missing one", async () => {
    const credentials = { client_id: client.client_id, client_secret: client.client_secret };
    await expectOAuthError(
      await t.tokenResponse({ ...credentials, grant_type: "password" }),
      400,
      "unsupported_grant_type",
    );
    await expectOAuthError(await t.tokenResponse(credentials), 400, "invalid_request");
    await expectOAuthError(await exchange("dcac_not-a-code"), 400, "invalid_grant");
  });
});
