/**
 * OAuth 2.0 Authorization Server Metadata (RFC 8414) at
 * `/.well-known/oauth-authorization-server`, and the `iss` parameter of every
 * authorization response (RFC 9207): the document's values, where the issuer
 * comes from, and an independent client library (oauth4webapi) that
 * discovers this server and runs its flows from the discovered endpoints only.
 */
import { request as httpRequest } from "node:http";
import { allScopes } from "@dc/contract";
import * as oauth from "oauth4webapi";
import { describe, expect, it } from "vitest";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { authorizePath, authorizeWithPassword, registerClient } from "./support/oauth-flow.ts";

const t = await startTestApi();
const acme = await t.tenant("Acme Collections");
const redirectUri = "https://ledger-sync.example/oauth/callback";
const registered = await registerClient(t, acme, { redirectUris: [redirectUri] });
const client: oauth.Client = { client_id: registered.client_id };
// The test server is plain http on 127.0.0.1; production is https only.
const insecure = { [oauth.allowInsecureRequests]: true } as const;

const METADATA = "/.well-known/oauth-authorization-server";

const expectedMetadata = (issuer: string) => ({
  issuer,
  authorization_endpoint: `${issuer}/oauth/authorize`,
  token_endpoint: `${issuer}/oauth/token`,
  revocation_endpoint: `${issuer}/oauth/revoke`,
  scopes_supported: [...allScopes],
  response_types_supported: ["code"],
  response_modes_supported: ["query"],
  grant_types_supported: ["authorization_code", "client_credentials", "refresh_token"],
  token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
  revocation_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
  code_challenge_methods_supported: ["S256"],
  service_documentation: `${issuer}/docs`,
  authorization_response_iss_parameter_supported: true,
});

/** A GET with its own Host header, which fetch would replace with the URL's. */
const getWithHost = (url: string, host: string) =>
  new Promise<Response>((resolve, reject) => {
    httpRequest(url, { headers: { host } }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on("data", (chunk: Buffer) => chunks.push(chunk));
      answer.on("end", () => {
        const headers = Object.entries(answer.headers).flatMap(([name, value]) =>
          typeof value === "string" ? [[name, value] as [string, string]] : [],
        );
        resolve(new Response(Buffer.concat(chunks), { status: answer.statusCode ?? 0, headers }));
      });
    })
      .on("error", reject)
      .end();
  });

const discover = async (issuer: string) => {
  const response = await oauth.discoveryRequest(new URL(issuer), { algorithm: "oauth2", ...insecure });
  return oauth.processDiscoveryResponse(new URL(issuer), response);
};

describe("the metadata document", () => {
  it("describes this server, as the OpenAPI document declares it, kept by no cache while its issuer is the request's host", async () => {
    const response = await t.request(METADATA);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    // No PUBLIC_BASE_URL here: a shared cache must not hand this host's document to a request naming another.
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await expectContract(response, "get", METADATA)).toEqual(expectedMetadata(t.api.url));
  });

  it("takes its issuer from PUBLIC_BASE_URL, whatever host the request names", async () => {
    const behindProxy = await t.startAnotherApi({ environment: { PUBLIC_BASE_URL: "https://api.collect.example/" } });
    try {
      const response = await getWithHost(`${behindProxy.url}${METADATA}`, "evil.example");
      expect(await expectContract(response, "get", METADATA)).toEqual(expectedMetadata("https://api.collect.example"));
      expect(response.headers.get("cache-control")).toBe("public, max-age=3600");
      // Without PUBLIC_BASE_URL (development), the host named is the issuer: the header does reach the api.
      const named = await getWithHost(`${t.api.url}${METADATA}`, "dev.example:3000");
      expect(((await named.json()) as { issuer: string }).issuer).toBe("http://dev.example:3000");
      // The authorization responses of that process carry the same issuer (RFC 9207).
      const redirected = await fetch(
        `${behindProxy.url}${authorizePath({ response_type: "token", client_id: registered.client_id, redirect_uri: redirectUri, state: "s" })}`,
        { redirect: "manual" },
      );
      expect(new URL(redirected.headers.get("location")!).searchParams.get("iss")).toBe("https://api.collect.example");
    } finally {
      await behindProxy.stop();
    }
  });

  it("answers another method with 405 and Allow, like every other route", async () => {
    const response = await t.request(METADATA, { method: "POST" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET");
    expect(await response.json()).toEqual({ error: true, message: "Method not allowed", code: 405 });
  });

  it.each([
    ["a trailing slash", `${METADATA}/`],
    ["another letter case", "/.well-known/OAuth-Authorization-Server"],
    ["an issuer path suffix (the issuer has no path)", `${METADATA}/oauth`],
    ["the OpenID Connect location (this is not an OpenID provider)", "/.well-known/openid-configuration"],
  ])("matches its path exactly: %s is an unknown route", async (_, path) => {
    const response = await t.request(path);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: true, message: "Route not found", code: 404 });
  });
});

// Discovered once for the file; a failure is the failure of each test that needs the metadata.
const as = await discover(t.api.url).catch((error: unknown) => error as Error);
const discovered = (): oauth.AuthorizationServer => {
  if (as instanceof Error) throw as;
  return as;
};

describe("oauth4webapi discovers the server and runs its flows from the discovered endpoints", () => {
  it("accepts the metadata: the issuer is exactly the one asked for", () => {
    expect(discovered()).toMatchObject({
      issuer: t.api.url,
      authorization_response_iss_parameter_supported: true,
    });
  });

  it("refuses it for another expected issuer (the check the iss parameter relies on)", async () => {
    const response = await oauth.discoveryRequest(new URL(t.api.url), { algorithm: "oauth2", ...insecure });
    await expect(oauth.processDiscoveryResponse(new URL("https://as.other.example"), response)).rejects.toMatchObject({
      code: oauth.JSON_ATTRIBUTE_COMPARISON,
    });
  });

  it("client_credentials at the discovered token endpoint", async () => {
    const server = discovered();
    const response = await oauth.clientCredentialsGrantRequest(
      server,
      client,
      oauth.ClientSecretBasic(registered.client_secret),
      { scope: "company:read" },
      insecure,
    );
    const result = await oauth.processClientCredentialsResponse(server, client, response);
    expect(result.scope).toBe("company:read");
    expect((await t.get("/external-api/v1/company/profile", result.access_token)).status).toBe(200);
  });

  /** Signs in and decides at the discovered authorization endpoint; the callback the browser is sent to. */
  const authorizeAtDiscovered = async (state: string, verifier: string, decision: "approve" | "deny" = "approve") =>
    authorizeWithPassword(
      t,
      {
        response_type: "code",
        client_id: client.client_id,
        redirect_uri: redirectUri,
        scope: "company:read debts:read",
        state,
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: "S256",
      },
      { email: acme.user_email, password: acme.user_password },
      decision,
      discovered().authorization_endpoint!,
    );

  it("authorization code with PKCE: the callback's iss is checked and accepted, then the code redeemed and revoked", async () => {
    const server = discovered();
    const clientAuth = oauth.ClientSecretPost(registered.client_secret);
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const callback = await authorizeAtDiscovered(state, verifier);
    expect(callback.searchParams.get("iss")).toBe(t.api.url);
    const parameters = oauth.validateAuthResponse(server, client, callback, state);
    const response = await oauth.authorizationCodeGrantRequest(
      server,
      client,
      clientAuth,
      parameters,
      redirectUri,
      verifier,
      insecure,
    );
    const tokens = await oauth.processAuthorizationCodeResponse(server, client, response);
    expect(tokens.scope).toBe("company:read debts:read");
    expect((await t.get("/external-api/v1/company/profile", tokens.access_token)).status).toBe(200);

    const revocation = await oauth.revocationRequest(server, client, clientAuth, tokens.refresh_token!, insecure);
    await expect(oauth.processRevocationResponse(revocation)).resolves.toBeUndefined();
    expect((await t.get("/external-api/v1/company/profile", tokens.access_token)).status).toBe(401);
  });

  it("refuses a callback whose iss is another issuer's, or that has none (a mix-up, RFC 9207 2.4)", async () => {
    const server = discovered();
    const state = oauth.generateRandomState();
    const callback = await authorizeAtDiscovered(state, oauth.generateRandomCodeVerifier());
    const forged = new URL(callback);
    forged.searchParams.set("iss", "https://attacker.example");
    expect(() => oauth.validateAuthResponse(server, client, forged, state)).toThrow(/unexpected "iss"/);
    const stripped = new URL(callback);
    stripped.searchParams.delete("iss");
    expect(() => oauth.validateAuthResponse(server, client, stripped, state)).toThrow(/"iss" \(issuer\) missing/);
  });

  it("reads a denial as access_denied once its iss is checked", async () => {
    const state = oauth.generateRandomState();
    const callback = await authorizeAtDiscovered(state, oauth.generateRandomCodeVerifier(), "deny");
    expect(callback.searchParams.get("iss")).toBe(t.api.url);
    const failure = (() => {
      try {
        return oauth.validateAuthResponse(discovered(), client, callback, state);
      } catch (error) {
        return error;
      }
    })();
    expect(failure).toBeInstanceOf(oauth.AuthorizationResponseError);
    expect((failure as oauth.AuthorizationResponseError).error).toBe("access_denied");
  });
});
