/**
 * The refresh_token grant (RFC 6749 6, RFC 9700 4.14) and revocation
 * (RFC 7009): rotation, reuse revoking the family (also under concurrency),
 * scope narrowing but never widening, client binding, the 30-day and 90-day
 * lifetimes, and what revocation may and may not touch.
 */
import { describe, expect, it } from "vitest";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { authorizationCode, registerClient } from "./support/oauth-flow.ts";

const t = await startTestApi();
const acme = await t.tenant("Acme Collections");
const redirectUri = "https://ledger-sync.example/oauth/callback";
const client = await registerClient(t, acme, { redirectUris: [redirectUri] });
const otherClient = await registerClient(t, acme, { redirectUris: [redirectUri], name: "Other integration" });

interface Tokens {
  readonly access_token: string;
  readonly refresh_token: string;
  readonly scope: string;
}

const DAY = 24 * 3600 * 1000;

const authorize = async (scope = "company:read debts:read", as = client): Promise<Tokens> => {
  const code = await authorizationCode(t, acme, as, redirectUri, { scope });
  const response = await t.tokenResponse({
    grant_type: "authorization_code",
    client_id: as.client_id,
    client_secret: as.client_secret,
    code,
    redirect_uri: redirectUri,
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Tokens;
};

const refresh = (refreshToken: string, extra: Record<string, string> = {}, as = client) =>
  t.tokenResponse({
    grant_type: "refresh_token",
    client_id: as.client_id,
    client_secret: as.client_secret,
    refresh_token: refreshToken,
    ...extra,
  });

const refreshed = async (refreshToken: string, extra: Record<string, string> = {}): Promise<Tokens> => {
  const response = await refresh(refreshToken, extra);
  expect(response.status, await response.clone().text()).toBe(200);
  return expectContract<Tokens>(response, "post", "/oauth/token");
};

const errorOf = async (response: Response) => {
  expect(response.headers.get("cache-control")).toBe("no-store");
  const path = new URL(response.url).pathname;
  return {
    status: response.status,
    ...(await expectContract<{ error: string; error_description: string }>(response, "post", path)),
  };
};

const profileStatus = async (token: string) => (await t.get("/external-api/v1/company/profile", token)).status;

describe("refresh_token", () => {
  it("rotates: a new refresh token each time, the old one spent", async () => {
    const first = await authorize();
    const second = await refreshed(first.refresh_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.scope).toBe("company:read debts:read");
    const third = await refreshed(second.refresh_token);
    expect(await profileStatus(third.access_token)).toBe(200);
    const rows = await t.db
      .selectFrom("oauth_refresh_tokens")
      .select(["rotated_at"])
      .orderBy("id", "desc")
      .limit(3)
      .execute();
    expect(rows.map((row) => row.rotated_at === null)).toEqual([true, false, false]);
  });

  it("treats reuse of a rotated token as theft: the whole family is revoked", async () => {
    const first = await authorize();
    const second = await refreshed(first.refresh_token);
    const reuse = await errorOf(await refresh(first.refresh_token));
    expect(reuse).toMatchObject({ status: 400, error: "invalid_grant" });
    expect(reuse.error_description).toMatch(/already used/);
    expect(await profileStatus(first.access_token)).toBe(401);
    expect(await profileStatus(second.access_token)).toBe(401);
    expect(await errorOf(await refresh(second.refresh_token))).toMatchObject({ status: 400, error: "invalid_grant" });
  });

  it("lets exactly one of 5 parallel refreshes with one token succeed, then revokes the family", async () => {
    const first = await authorize();
    const responses = await Promise.all(Array.from({ length: 5 }, () => refresh(first.refresh_token)));
    expect(responses.map((response) => response.status).sort()).toEqual([200, 400, 400, 400, 400]);
    const winner = (await responses.find((response) => response.status === 200)!.json()) as Tokens;
    for (const loser of responses.filter((response) => response.status === 400)) {
      expect(((await loser.json()) as { error: string }).error).toBe("invalid_grant");
    }
    expect(await profileStatus(winner.access_token)).toBe(401);
    expect(await errorOf(await refresh(winner.refresh_token))).toMatchObject({ status: 400, error: "invalid_grant" });
  });

  it("narrows scope for the access token; the refresh token keeps the original scope", async () => {
    const first = await authorize();
    const narrow = await refreshed(first.refresh_token, { scope: "debts:read" });
    expect(narrow.scope).toBe("debts:read");
    expect(await profileStatus(narrow.access_token)).toBe(403);
    const full = await refreshed(narrow.refresh_token);
    expect(full.scope).toBe("company:read debts:read");
  });

  it("never widens scope, and a refused widening leaves the token usable", async () => {
    const first = await authorize("company:read");
    for (const scope of ["company:read debts:read", "followups:read", "admin:all", " "]) {
      expect(await errorOf(await refresh(first.refresh_token, { scope }))).toMatchObject({
        status: 400,
        error: "invalid_scope",
      });
    }
    expect((await refreshed(first.refresh_token)).scope).toBe("company:read");
  });

  it("is bound to its client: another client's attempt fails and does not spend it", async () => {
    const first = await authorize();
    const body = await errorOf(await refresh(first.refresh_token, {}, otherClient));
    expect(body).toMatchObject({
      status: 400,
      error: "invalid_grant",
      error_description: "The refresh token was issued to another client",
    });
    expect((await refresh(first.refresh_token)).status).toBe(200);
  });

  it("expires a refresh token 30 days after it was issued", async () => {
    const used = await authorize();
    const idle = await authorize();
    t.clock.advance(30 * DAY - 1000);
    await refreshed(used.refresh_token);
    t.clock.advance(1000);
    expect(await errorOf(await refresh(idle.refresh_token))).toMatchObject({ status: 400, error: "invalid_grant" });
  });

  it("ends every authorization 90 days after approval, however often it is refreshed", async () => {
    let tokens = await authorize();
    for (let day = 0; day < 87; day += 29) {
      t.clock.advance(29 * DAY);
      tokens = await refreshed(tokens.refresh_token);
    }
    const last = await t.db
      .selectFrom("oauth_refresh_tokens")
      .select("expires_at")
      .orderBy("id", "desc")
      .executeTakeFirstOrThrow();
    const grant = await t.db
      .selectFrom("oauth_grants")
      .select("created_at")
      .orderBy("id", "desc")
      .executeTakeFirstOrThrow();
    expect(last.expires_at.getTime()).toBe(grant.created_at.getTime() + 90 * DAY);
    t.clock.advance(3 * DAY);
    expect(await errorOf(await refresh(tokens.refresh_token))).toMatchObject({ status: 400, error: "invalid_grant" });
  });

  it("stops when the approving user is disabled", async () => {
    const tokens = await authorize();
    await t.db.updateTable("users").set({ disabled_at: t.clock.now() }).where("email", "=", acme.user_email).execute();
    try {
      expect(await errorOf(await refresh(tokens.refresh_token))).toMatchObject({ status: 400, error: "invalid_grant" });
    } finally {
      await t.db.updateTable("users").set({ disabled_at: null }).where("email", "=", acme.user_email).execute();
    }
  });

  it("drops scopes the client has lost since the approval", async () => {
    const narrowed = await registerClient(t, acme, { redirectUris: [redirectUri], name: "Shrinking" });
    const tokens = await authorize("company:read debts:read", narrowed);
    await t.db
      .updateTable("oauth_clients")
      .set({ allowed_scopes: ["debts:read"] })
      .where("id", "=", narrowed.id)
      .execute();
    const response = await refresh(tokens.refresh_token, {}, narrowed);
    expect(((await response.json()) as Tokens).scope).toBe("debts:read");
  });

  it("never issues a refresh token for client_credentials", async () => {
    const response = await t.tokenResponse({
      grant_type: "client_credentials",
      client_id: client.client_id,
      client_secret: client.client_secret,
    });
    expect(((await response.json()) as Record<string, unknown>)["refresh_token"]).toBeUndefined();
    expect(await errorOf(await refresh("dcrt_unknown"))).toMatchObject({ status: 400, error: "invalid_grant" });
    expect(await errorOf(await refresh(""))).toMatchObject({ status: 400, error: "invalid_request" });
  });
});

describe("POST /oauth/revoke (RFC 7009)", () => {
  const revoke = (
    token: string | undefined,
    as: { client_id: string; client_secret: string } = client,
    extra: Record<string, string> = {},
  ) =>
    t.request("/oauth/revoke", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        client_id: as.client_id,
        client_secret: as.client_secret,
        ...(token === undefined ? {} : { token }),
        ...extra,
      }).toString(),
    });

  it("revokes an access token alone", async () => {
    const tokens = await authorize();
    const response = await revoke(tokens.access_token, client, { token_type_hint: "access_token" });
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await expectContract(response, "post", "/oauth/revoke")).toEqual({});
    expect(await profileStatus(tokens.access_token)).toBe(401);
    expect((await refresh(tokens.refresh_token)).status).toBe(200);
  });

  it("answers 200 for unknown tokens and another client's tokens, changing nothing", async () => {
    const tokens = await authorize();
    expect((await revoke("dcat_unknown")).status).toBe(200);
    expect((await revoke(tokens.access_token, otherClient)).status).toBe(200);
    expect((await revoke(tokens.refresh_token, otherClient, { token_type_hint: "refresh_token" })).status).toBe(200);
    expect(await profileStatus(tokens.access_token)).toBe(200);
    expect((await refresh(tokens.refresh_token)).status).toBe(200);
  });

  it("requires client authentication and a token", async () => {
    expect(await errorOf(await revoke("x", { client_id: client.client_id, client_secret: "wrong" }))).toMatchObject({
      status: 401,
      error: "invalid_client",
    });
    expect(await errorOf(await revoke(undefined))).toMatchObject({ status: 400, error: "invalid_request" });
  });

  it("refuses a body over 16 KiB with 413 invalid_request, revoking nothing", async () => {
    const tokens = await authorize();
    const huge = await revoke(tokens.access_token, client, { pad: "x".repeat(20_000) });
    expect(await errorOf(huge)).toEqual({
      status: 413,
      error: "invalid_request",
      error_description: "The request body is larger than 16384 bytes",
    });
    expect(await profileStatus(tokens.access_token)).toBe(200);
    expect((await refresh(tokens.refresh_token)).status).toBe(200);
  });
});
