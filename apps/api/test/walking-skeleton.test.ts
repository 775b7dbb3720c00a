import { describe, expect, it } from "vitest";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";

const t = await startTestApi();
const acme = await t.tenant("Acme Collections");

describe("client_credentials token", () => {
  it("issues an opaque bearer token for 3600 s holding the client's scopes, stored only as a hash", async () => {
    const response = await t.tokenResponse({
      grant_type: "client_credentials",
      client_id: acme.client_id,
      client_secret: acme.client_secret,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(["access_token", "expires_in", "scope", "token_type"]);
    expect(body["token_type"]).toBe("Bearer");
    expect(body["expires_in"]).toBe(3600);
    expect(body["scope"]).toBe(acme.scopes);
    expect(body["access_token"]).toMatch(/^dcat_[A-Za-z0-9_-]{43}$/);
    const stored = await t.db.selectFrom("oauth_access_tokens").select(["token_hash"]).execute();
    expect(stored.some((row) => row.token_hash.toString("utf8").includes(String(body["access_token"])))).toBe(false);
  });

  it("is served at /token too", async () => {
    const response = await t.tokenResponse(
      {
        grant_type: "client_credentials",
        client_id: acme.client_id,
        client_secret: acme.client_secret,
        scope: "company:read",
      },
      {},
      "/token",
    );
    expect(response.status).toBe(200);
    expect(await expectContract(response, "post", "/token")).toEqual({
      access_token: expect.stringMatching(/^dcat_[A-Za-z0-9_-]{43}$/),
      token_type: "Bearer",
      expires_in: 3600,
      scope: "company:read",
    });
  });

  it("answers every documented error at /token exactly as at /oauth/token", async () => {
    const alias = (body: string) =>
      t.request("/token", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body });
    const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
    const credentials = { client_id: acme.client_id, client_secret: acme.client_secret };
    const issuedBefore = await t.db.selectFrom("oauth_access_tokens").select("id").execute();

    const unauthenticated = await alias(
      form({ grant_type: "client_credentials", client_id: acme.client_id, client_secret: "wrong" }),
    );
    expect(unauthenticated.status).toBe(401);
    expect(await expectContract(unauthenticated, "post", "/token")).toEqual({
      error: "invalid_client",
      error_description: "Client authentication failed",
    });
    const grant = await alias(form({ grant_type: "password", ...credentials }));
    expect(grant.status).toBe(400);
    expect(await expectContract(grant, "post", "/token")).toEqual({
      error: "unsupported_grant_type",
      error_description: "Unsupported grant_type: password",
    });
    const scope = await alias(
      form({ grant_type: "client_credentials", ...credentials, scope: "company:read admin:everything" }),
    );
    expect(scope.status).toBe(400);
    expect(await expectContract(scope, "post", "/token")).toEqual({
      error: "invalid_scope",
      error_description: "Scope not allowed for this client: admin:everything",
    });
    const refresh = await alias(form({ grant_type: "refresh_token", ...credentials, refresh_token: "dcrt_unknown" }));
    expect(refresh.status).toBe(400);
    expect(await expectContract(refresh, "post", "/token")).toEqual({
      error: "invalid_grant",
      error_description: "Unknown or revoked refresh token",
    });
    const missing = await alias(form({ ...credentials }));
    expect(missing.status).toBe(400);
    expect(await expectContract(missing, "post", "/token")).toEqual({
      error: "invalid_request",
      error_description: "Missing grant_type",
    });
    const huge = await alias(`grant_type=client_credentials&pad=${"x".repeat(20_000)}`);
    expect(huge.status).toBe(413);
    expect(await expectContract(huge, "post", "/token")).toEqual({
      error: "invalid_request",
      error_description: "The request body is larger than 16384 bytes",
    });
    expect(await t.db.selectFrom("oauth_access_tokens").select("id").execute()).toEqual(issuedBefore);
  });

  it("refuses a wrong secret with invalid_client", async () => {
    const response = await t.tokenResponse({
      grant_type: "client_credentials",
      client_id: acme.client_id,
      client_secret: `${acme.client_secret}x`,
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: "invalid_client", error_description: "Client authentication failed" });
  });

  it("refuses a scope outside the client's allowed set with invalid_scope", async () => {
    const response = await t.tokenResponse({
      grant_type: "client_credentials",
      client_id: acme.client_id,
      client_secret: acme.client_secret,
      scope: "company:read admin:everything",
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe("invalid_scope");
  });
});

describe("GET /external-api/v1/company/profile", () => {
  it("returns the profile envelope of the token's company", async () => {
    const token = await t.token(acme);
    const response = await t.get("/external-api/v1/company/profile", token);
    expect(response.status).toBe(200);
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const body = await expectContract<{ error: boolean; message: string; data: Record<string, unknown> }>(
      response,
      "get",
      "/external-api/v1/company/profile",
    );
    expect(body.error).toBe(false);
    expect(body.message).toBe("Company profile retrieved successfully");
    expect(body.data).toEqual({
      id: acme.company_id,
      name: "Acme Collections",
      email: expect.stringMatching(/^admin\+[0-9a-f]{6}@acme-collections\.example$/),
      phone: null,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/),
    });
  });

  it("answers 401 with the contract's message when the token is missing, malformed or unknown", async () => {
    for (const authorization of [undefined, "Bearer", "Basic abc", "Bearer not-a-token", "bearer x y"]) {
      const response = await t.request("/external-api/v1/company/profile", {
        headers: authorization === undefined ? {} : { authorization },
      });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({
        error: true,
        message: "Authentication credentials are missing or invalid",
        code: 401,
      });
    }
  });

  it("accepts the Bearer scheme in any letter case (RFC 9110 11.1)", async () => {
    const token = await t.token(acme);
    for (const scheme of ["bearer", "BEARER", "BeArEr"]) {
      const response = await t.request("/external-api/v1/company/profile", { headers: { authorization: `${scheme} ${token}` } });
      expect(response.status, scheme).toBe(200);
    }
  });

  it("answers 401 once the token has expired (after 3600 s)", async () => {
    const token = await t.token(acme);
    t.clock.advance(3599_000);
    expect((await t.get("/external-api/v1/company/profile", token)).status).toBe(200);
    t.clock.advance(1_000);
    const expired = await t.get("/external-api/v1/company/profile", token);
    expect(expired.status).toBe(401);
    expect(((await expired.json()) as { message: string }).message).toBe("Authentication credentials are missing or invalid");
  });

  it("answers 403 naming the scope when the token lacks company:read", async () => {
    const token = await t.token(acme, "debts:read");
    const response = await t.get("/external-api/v1/company/profile", token);
    expect(response.status).toBe(403);
    expect(await expectContract(response, "get", "/external-api/v1/company/profile")).toEqual({
      error: true,
      message: 'Required scope "company:read" not found in token',
      code: 403,
    });
  });

  it("stops accepting the tokens of a revoked client at once", async () => {
    const other = await t.tenant("Revoked Ltd");
    const token = await t.token(other);
    expect((await t.get("/external-api/v1/company/profile", token)).status).toBe(200);
    await t.db.updateTable("oauth_clients").set({ revoked_at: t.clock.now() }).where("client_id", "=", other.client_id).execute();
    expect((await t.get("/external-api/v1/company/profile", token)).status).toBe(401);
  });

  it("shows each company only its own profile", async () => {
    const globex = await t.tenant("Globex");
    const body = (await (await t.get("/external-api/v1/company/profile", await t.token(globex))).json()) as {
      data: { id: string; name: string };
    };
    expect(body.data).toMatchObject({ id: globex.company_id, name: "Globex" });
    expect(body.data.id).not.toBe(acme.company_id);
  });
});

describe("one error path", () => {
  it("answers an unknown route with the 404 envelope", async () => {
    const response = await t.get("/external-api/v1/nothing-here");
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: true, message: "Route not found", code: 404 });
  });

  it.each([
    ["another letter case", "/external-api/v1/Company/Profile"],
    ["a trailing slash", "/external-api/v1/company/profile/"],
    ["an empty segment", "/external-api/v1//company/profile"],
    ["another letter case in the prefix", "/External-API/v1/company/profile"],
  ])("matches paths exactly as the OpenAPI document writes them: %s is an unknown route", async (_, path) => {
    const response = await t.get(path, await t.token(acme));
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: true, message: "Route not found", code: 404 });
  });

  it("matches a path parameter of any letter case (ids are case-sensitive values, not route text)", async () => {
    const response = await t.get("/external-api/v1/debts/NOT-AN-ID", await t.token(acme));
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: true, message: "Debt not found", code: 404 });
  });

  it("answers a wrong method with 405 and Allow", async () => {
    const response = await t.request("/external-api/v1/company/profile", { method: "DELETE" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET");
    expect(await response.json()).toEqual({ error: true, message: "Method not allowed", code: 405 });
  });

  it("answers an oversize token request with 413", async () => {
    const response = await t.request("/oauth/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `grant_type=client_credentials&pad=${"x".repeat(20_000)}`,
    });
    expect(response.status).toBe(413);
    // The token endpoint answers every error as OAuth 2.0 does (RFC 6749 5.2).
    expect(await expectContract(response, "post", "/oauth/token")).toEqual({
      error: "invalid_request",
      error_description: "The request body is larger than 16384 bytes",
    });
  });

  it("answers a wrong method on the token endpoint in the OAuth shape, with Allow", async () => {
    const response = await t.request("/oauth/token", { method: "GET" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    expect(await response.json()).toEqual({ error: "invalid_request", error_description: "Method not allowed: use POST" });
  });

  it("refuses NUL characters in token parameters and in Basic credentials as OAuth errors, never as a database error", async () => {
    const form = await t.tokenResponse({ grant_type: "client_credentials", client_id: "a\u0000b", client_secret: "x" });
    expect(form.status).toBe(400);
    expect(await expectContract(form, "post", "/oauth/token")).toEqual({
      error: "invalid_request",
      error_description: 'Parameter "client_id" must not contain NUL characters or unpaired surrogates',
    });
    const basic = await t.tokenResponse(
      { grant_type: "client_credentials" },
      { authorization: `Basic ${Buffer.from("a%00b:secret").toString("base64")}` },
    );
    expect(basic.status).toBe(401);
    expect(((await basic.json()) as { error: string }).error).toBe("invalid_client");
  });

  it("answers a token request that is not form-encoded with invalid_request", async () => {
    const response = await t.request("/oauth/token", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ grant_type: "client_credentials" }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe("invalid_request");
  });

  it("serves the OpenAPI document", async () => {
    const response = await t.get("/external-api/v1/openapi.json");
    expect(response.status).toBe(200);
    const document = (await response.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(document.openapi).toBe("3.1.0");
    expect(Object.keys(document.paths)).toContain("/external-api/v1/company/profile");
  });
});
