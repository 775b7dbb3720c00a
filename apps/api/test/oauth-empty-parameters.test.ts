/**
 * RFC 6749 3.1 and 3.2: "Parameters sent without a value MUST be treated as
 * if they were omitted from the request", at the authorization endpoint and
 * at the token endpoint (and so at revocation, which authenticates clients
 * the same way). An empty `scope=` is no scope at all, not an invalid one.
 */
import { describe, expect, it } from "vitest";
import { s256Challenge } from "../src/oauth/pkce.ts";
import { startTestApi } from "./support/harness.ts";
import { authorizationCode, authorizePath, registerClient } from "./support/oauth-flow.ts";

const t = await startTestApi();
const acme = await t.tenant("Acme Collections");
const redirectUri = "https://ledger-sync.example/oauth/callback";
const client = await registerClient(t, acme, { redirectUris: [redirectUri], scopes: ["debts:read", "company:read"] });
const credentials = { client_id: client.client_id, client_secret: client.client_secret };
const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString("base64")}`;

const granted = async (response: Response) => {
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as { access_token: string; refresh_token?: string; scope: string };
};

const redeem = async (code: string, extra: Record<string, string> = {}) =>
  granted(
    await t.tokenResponse({
      grant_type: "authorization_code",
      ...credentials,
      code,
      redirect_uri: redirectUri,
      ...extra,
    }),
  );

describe("the token endpoint", () => {
  it("gives client_credentials with `scope=` every scope the client may request", async () => {
    const tokens = await granted(
      await t.tokenResponse({ grant_type: "client_credentials", ...credentials, scope: "" }),
    );
    expect(tokens.scope).toBe("debts:read company:read");
  });

  it("refreshes with `scope=` to the refresh token's whole scope", async () => {
    const first = await redeem(await authorizationCode(t, acme, client, redirectUri, { scope: "company:read" }));
    const refreshed = await granted(
      await t.tokenResponse({
        grant_type: "refresh_token",
        ...credentials,
        refresh_token: first.refresh_token!,
        scope: "",
      }),
    );
    expect(refreshed.scope).toBe("company:read");
  });

  it("takes an empty `code_verifier=` for none", async () => {
    const withoutChallenge = await authorizationCode(t, acme, client, redirectUri);
    await redeem(withoutChallenge, { code_verifier: "" });

    const verifier = "an-empty-parameter-is-no-parameter-0123456789-abcdefgh";
    const withChallenge = await authorizationCode(t, acme, client, redirectUri, {
      code_challenge: s256Challenge(verifier),
      code_challenge_method: "S256",
    });
    const missing = await t.tokenResponse({
      grant_type: "authorization_code",
      ...credentials,
      code: withChallenge,
      redirect_uri: redirectUri,
      code_verifier: "",
    });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: string }).error).toBe("invalid_grant");
    // The failed verification burned that code; a new one redeems with its verifier.
    const again = await authorizationCode(t, acme, client, redirectUri, {
      code_challenge: s256Challenge(verifier),
      code_challenge_method: "S256",
    });
    await redeem(again, { code_verifier: verifier });
  });

  it("accepts HTTP Basic beside empty `client_id=` and `client_secret=` fields", async () => {
    const form = { grant_type: "client_credentials", client_id: "", client_secret: "" };
    await granted(await t.tokenResponse(form, { authorization: basic }));
    const revocation = await t.request("/oauth/revoke", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic },
      body: new URLSearchParams({ token: "dcat_unknown", client_id: "", client_secret: "" }),
    });
    expect(revocation.status).toBe(200);
  });
});

describe("the authorization endpoint", () => {
  const base = { response_type: "code", client_id: client.client_id, redirect_uri: redirectUri, state: "s-1" };
  const location = async (parameters: Record<string, string>) => {
    const response = await t.request(authorizePath(parameters), { redirect: "manual" });
    return { status: response.status, location: response.headers.get("location") };
  };

  it("shows the sign-in page for empty `code_challenge=` and `code_challenge_method=`", async () => {
    expect((await location({ ...base, code_challenge: "", code_challenge_method: "" })).status).toBe(200);
  });

  it("answers an empty `response_type=` as a missing one", async () => {
    const answer = await location({ ...base, response_type: "" });
    expect(answer.status).toBe(302);
    const redirected = new URL(answer.location!);
    expect(redirected.searchParams.get("error")).toBe("invalid_request");
    expect(redirected.searchParams.get("state")).toBe("s-1");
  });

  it("sends no state back for an empty `state=`", async () => {
    const answer = await location({ ...base, state: "", response_type: "token" });
    expect(answer.status).toBe(302);
    expect(new URL(answer.location!).searchParams.has("state")).toBe(false);
  });
});
