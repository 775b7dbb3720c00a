/**
 * The Authorization header as RFC 6750 2.1 and RFC 7617 (through RFC 9110
 * 11.4) define it: `<scheme> 1*SP <token68>`, the scheme in any case; and the
 * bearer challenge of a 401 (RFC 6750 3): `error="invalid_token"` when a
 * token was presented and refused, no error when none was.
 */
import { describe, expect, it } from "vitest";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";

const t = await startTestApi();
const acme = await t.tenant("Acme Collections");
const profile = "/external-api/v1/company/profile";

const withAuthorization = (authorization: string) => t.request(profile, { headers: { authorization } });

const basic = (id: string, secret: string) => Buffer.from(`${id}:${secret}`).toString("base64");

describe("the Authorization header", () => {
  it("accepts a bearer token after more than one space, in any case of the scheme", async () => {
    const token = await t.token(acme, "company:read");
    for (const header of [`Bearer ${token}`, `Bearer  ${token}`, `bearer   ${token}`, `BEARER ${token}`]) {
      expect((await withAuthorization(header)).status, header).toBe(200);
    }
  });

  it("accepts HTTP Basic client credentials after more than one space", async () => {
    const response = await t.tokenResponse(
      { grant_type: "client_credentials", scope: "company:read" },
      { authorization: `Basic  ${basic(acme.client_id, acme.client_secret)}` },
    );
    expect(response.status).toBe(200);
  });

  it("refuses what is not `<scheme> 1*SP <token68>`", async () => {
    const token = await t.token(acme, "company:read");
    for (const header of [`Bearer\t${token}`, `Bearer${token}`, `Bearer ${token} x`, `Bearer ${token}==x`]) {
      expect((await withAuthorization(header)).status, header).toBe(401);
    }
    const response = await t.tokenResponse(
      { grant_type: "client_credentials" },
      { authorization: `Basic ${basic(acme.client_id, acme.client_secret)}.` },
    );
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: string }).error).toBe("invalid_client");
  });
});

describe("the bearer challenge of a 401", () => {
  it("has no error when the request carries no bearer token", async () => {
    for (const response of [await t.request(profile), await withAuthorization(`Basic ${basic("a", "b")}`)]) {
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe('Bearer realm="external-api"');
      await expectContract(response, "get", profile);
    }
  });

  it("says invalid_token for an unknown, revoked, over-long or expired token", async () => {
    const expectInvalidToken = async (token: string) => {
      const response = await t.get(profile, token);
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe('Bearer realm="external-api", error="invalid_token"');
      await expectContract(response, "get", profile);
    };
    const revoked = await t.token(acme, "company:read");
    const revocation = await t.request("/oauth/revoke", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: revoked, client_id: acme.client_id, client_secret: acme.client_secret }),
    });
    expect(revocation.status).toBe(200);
    for (const token of ["dcat_unknown", revoked, "x".repeat(600)]) await expectInvalidToken(token);

    const expired = await t.token(acme, "company:read");
    t.clock.advance(3600 * 1000);
    await expectInvalidToken(expired);
  });
});
