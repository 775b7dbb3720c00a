/**
 * The Authorization header as RFC 6750 2.1 and RFC 7617 (through RFC 9110
 * 11.4) define it: `<scheme> 1*SP <token68>`, the scheme in any case.
 */
import { describe, expect, it } from "vitest";
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
