/**
 * The Authorization header as RFC 6750 2.1 and RFC 7617 (through RFC 9110
 * 11.4) define it: `<scheme> 1*SP <token68>`, the scheme in any case; and the
 * bearer challenge of a 401 (RFC 6750 3): `error="invalid_token"` when a
 * token was presented and refused, no error when none was.
 */
import { type IncomingHttpHeaders, request as httpRequest } from "node:http";
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

/** Sends `path` with the header `authorization` written once per value (fetch would join them on one line). */
const withAuthorizationLines = (
  path: string,
  values: ReadonlyArray<string>,
  options: { readonly method?: string; readonly body?: string; readonly contentType?: string } = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> =>
  new Promise((resolve, reject) => {
    const url = new URL(path, t.api.url);
    const request = httpRequest(
      url,
      {
        method: options.method ?? "GET",
        // A flat list of names and values: Node writes each pair as its own field line.
        headers: [
          "host",
          url.host,
          ...values.flatMap((value) => ["authorization", value]),
          ...(options.contentType === undefined ? [] : ["content-type", options.contentType]),
        ],
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString("utf8") }),
        );
      },
    );
    request.on("error", reject);
    request.end(options.body);
  });

describe("an Authorization header sent twice", () => {
  // RFC 9110 5.3: Authorization is not a list, so two field lines cannot be read as one value; Node's
  // parser keeps the first and drops the other, so a proxy that reads the last saw another caller.
  it("is refused as a malformed header by every bearer operation, whichever line holds the valid token", async () => {
    const token = await t.token(acme, "company:read");
    for (const values of [
      [`Bearer ${token}`, "Bearer dcat_unknown"],
      ["Bearer dcat_unknown", `Bearer ${token}`],
      [`Bearer ${token}`, `Bearer ${token}`],
    ]) {
      const response = await withAuthorizationLines(profile, values);
      expect(response.status, `${values.join(" | ")} ${response.body}`).toBe(401);
      expect(JSON.parse(response.body)).toEqual({
        error: true,
        message: "Authentication credentials are missing or invalid",
        code: 401,
      });
      expect(response.headers["www-authenticate"]).toBe('Bearer realm="external-api"');
    }
  });

  it("is refused by the token and revocation endpoints as malformed client credentials, and issues nothing", async () => {
    const credentials = `Basic ${basic(acme.client_id, acme.client_secret)}`;
    const tokensBefore = await t.db.selectFrom("oauth_access_tokens").select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow();
    for (const values of [[credentials, `Basic ${basic("someone", "else")}`], [credentials, credentials]]) {
      const response = await withAuthorizationLines("/oauth/token", values, {
        method: "POST",
        contentType: "application/x-www-form-urlencoded",
        body: "grant_type=client_credentials&scope=company%3Aread",
      });
      expect(response.status, `${values.join(" | ")} ${response.body}`).toBe(401);
      expect(JSON.parse(response.body)).toEqual({ error: "invalid_client", error_description: "Malformed HTTP Basic credentials" });
    }
    const tokensAfter = await t.db.selectFrom("oauth_access_tokens").select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow();
    expect(tokensAfter.n).toBe(tokensBefore.n);

    const token = await t.token(acme, "company:read");
    const revocation = await withAuthorizationLines("/oauth/revoke", [credentials, credentials], {
      method: "POST",
      contentType: "application/x-www-form-urlencoded",
      body: new URLSearchParams({ token }).toString(),
    });
    expect(revocation.status).toBe(401);
    expect((await t.get(profile, token)).status).toBe(200);
  });
});
