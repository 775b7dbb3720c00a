/**
 * GET /oauth/authorize request checks (RFC 6749 4.1.2.1, RFC 9700 4.1): an
 * unknown client or an unregistered redirect URI is an error page and never a
 * redirect; once both are established, errors go back to the client with the
 * state. Also: the page's security headers and its place in the OpenAPI
 * document.
 */
import { describe, expect, it } from "vitest";
import { startTestApi } from "./support/harness.ts";
import { authorizePath, authorizeWithPassword, registerClient } from "./support/oauth-flow.ts";

const t = await startTestApi();
const acme = await t.tenant("Acme Collections");
const redirectUri = "https://ledger-sync.example/oauth/callback";
const client = await registerClient(t, acme, { redirectUris: [redirectUri], scopes: ["debts:read", "company:read"] });
const base = { response_type: "code", client_id: client.client_id, redirect_uri: redirectUri, state: "st-42" };

const expectErrorPage = async (response: Response, code: string) => {
  expect(response.status).toBe(400);
  expect(response.headers.get("location")).toBeNull();
  expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
  const html = await response.text();
  expect(html).toContain(`<code class="error-code">${code}</code>`);
  return html;
};

const expectRedirectError = (response: Response, error: string, state: string | null = "st-42") => {
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get("location")!);
  expect(`${location.origin}${location.pathname}`).toBe(redirectUri);
  expect(location.searchParams.get("error")).toBe(error);
  expect(location.searchParams.get("state")).toBe(state);
  expect(location.searchParams.has("code")).toBe(false);
  // RFC 9207: every authorization response names its issuer, the metadata's.
  expect(location.searchParams.getAll("iss")).toEqual([t.api.url]);
};

const get = (parameters: Record<string, string>) => t.request(authorizePath(parameters), { redirect: "manual" });

describe("requests that are never redirected", () => {
  it("shows an error page for a missing, unknown or revoked client", async () => {
    const { client_id: _, ...withoutClient } = base;
    await expectErrorPage(await get(withoutClient), "invalid_request");
    await expectErrorPage(await get({ ...base, client_id: "dcc_unknown" }), "invalid_client");
    const revoked = await registerClient(t, acme, { redirectUris: [redirectUri], name: "Revoked" });
    await t.db.updateTable("oauth_clients").set({ revoked_at: t.clock.now() }).where("id", "=", revoked.id).execute();
    await expectErrorPage(await get({ ...base, client_id: revoked.client_id }), "invalid_client");
    // A client_id PostgreSQL cannot hold as text names no client (not a 500).
    await expectErrorPage(await get({ ...base, client_id: "\u0000" }), "invalid_client");
    await expectErrorPage(await get({ ...base, client_id: "dcc_\ud800" }), "invalid_client");
  });

  it("shows redirect_uri_mismatch for any URI not registered byte for byte", async () => {
    const attempts = [
      `${redirectUri}x`,
      redirectUri.replace("ledger", "ledgeR"),
      `${redirectUri}?next=https://evil.example`,
      `${redirectUri}/`,
      redirectUri.replace("https:", "http:"),
      "https://evil.example/oauth/callback",
      `${redirectUri}#fragment`,
    ];
    for (const attempt of attempts) {
      const html = await expectErrorPage(await get({ ...base, redirect_uri: attempt }), "redirect_uri_mismatch");
      expect(html).not.toContain("evil.example");
    }
    const { redirect_uri: _, ...withoutRedirect } = base;
    await expectErrorPage(await get(withoutRedirect), "redirect_uri_mismatch");
  });

  it("shows an error page when client_id or redirect_uri is repeated", async () => {
    const response = await t.request(
      `${authorizePath(base)}&redirect_uri=${encodeURIComponent("https://evil.example/")}`,
      { redirect: "manual" },
    );
    await expectErrorPage(response, "invalid_request");
  });
});

describe("requests redirected back with an error", () => {
  it("refuses a response_type other than code, and a missing one", async () => {
    expectRedirectError(await get({ ...base, response_type: "token" }), "unsupported_response_type");
    const { response_type: _, ...withoutType } = base;
    expectRedirectError(await get(withoutType), "invalid_request");
  });

  it("refuses scopes outside the client's allowed set", async () => {
    expectRedirectError(await get({ ...base, scope: "debts:read debts:write" }), "invalid_scope");
    expectRedirectError(await get({ ...base, scope: "admin" }), "invalid_scope");
  });

  it("refuses plain PKCE and malformed challenges", async () => {
    const challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
    expectRedirectError(
      await get({ ...base, code_challenge: challenge, code_challenge_method: "plain" }),
      "invalid_request",
    );
    expectRedirectError(await get({ ...base, code_challenge: challenge }), "invalid_request");
    expectRedirectError(await get({ ...base, code_challenge_method: "S256" }), "invalid_request");
    expectRedirectError(
      await get({ ...base, code_challenge: "too-short", code_challenge_method: "S256" }),
      "invalid_request",
    );
    expect((await get({ ...base, code_challenge: challenge, code_challenge_method: "S256" })).status).toBe(200);
  });

  it("refuses a repeated scope", async () => {
    expectRedirectError(
      await t.request(`${authorizePath(base)}&scope=debts:read&scope=company:read`, { redirect: "manual" }),
      "invalid_request",
    );
  });

  it("returns the state unchanged, byte for byte, and omits it when absent", async () => {
    const state = "a b&c=d/é+%20?";
    expectRedirectError(await get({ ...base, state, response_type: "token" }), "unsupported_response_type", state);
    const { state: _, ...withoutState } = base;
    expectRedirectError(await get({ ...withoutState, response_type: "token" }), "unsupported_response_type", null);
    const approved = await authorizeWithPassword(
      t,
      { ...base, state },
      { email: acme.user_email, password: acme.user_password },
    );
    expect(approved.searchParams.get("state")).toBe(state);
    expect(approved.searchParams.getAll("iss")).toEqual([t.api.url]);
  });
});

describe("the page itself", () => {
  it("is HTML with a strict CSP, no framing, no referrer, no caching and no CORS", async () => {
    const response = await t.request(authorizePath(base), { headers: { origin: "https://evil.example" } });
    expect(response.status).toBe(200);
    const csp = response.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'none'");
    expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/]+=*'/);
    expect(csp).toContain("form-action 'self' https://ledger-sync.example");
    expect(csp).not.toContain("unsafe");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect([...response.headers.keys()].filter((name) => name.startsWith("access-control-"))).toEqual([]);
    const html = await response.text();
    expect(html).not.toMatch(/<script|\sstyle=|\son[a-z]+=/i);
    expect(html).toMatch(/<label for="email">/);
    expect(html).toMatch(/<label for="password">/);
  });

  it("answers a CORS preflight without any CORS header", async () => {
    const response = await t.request("/oauth/authorize", {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
    });
    expect([...response.headers.keys()].filter((name) => name.startsWith("access-control-"))).toEqual([]);
  });

  it("escapes the client name", async () => {
    const hostile = await registerClient(t, acme, {
      redirectUris: [redirectUri],
      name: '<img src=x onerror="alert(1)"> & Co',
    });
    const html = await (await get({ ...base, client_id: hostile.client_id })).text();
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt; &amp; Co");
    expect(html).not.toContain("<img");
  });

  it("is documented in the OpenAPI document with its redirects", async () => {
    const document = (await (await t.get("/external-api/v1/openapi.json")).json()) as {
      paths: Record<
        string,
        Record<
          string,
          { responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, unknown> }> }
        >
      >;
    };
    const authorize = document.paths["/oauth/authorize"]!;
    expect(Object.keys(authorize["get"]!.responses).sort()).toEqual(["200", "302", "400", "403", "500", "503"]);
    expect(authorize["get"]!.responses["503"]!.headers).toHaveProperty("Retry-After");
    expect(authorize["get"]!.responses["302"]!.headers).toHaveProperty("Location");
    expect(authorize["get"]!.responses["200"]!.content).toHaveProperty("text/html");
    expect(authorize["post"]!.responses["303"]!.headers).toHaveProperty("Location");
    expect(document.paths["/oauth/revoke"]).toHaveProperty("post");
  });
});
