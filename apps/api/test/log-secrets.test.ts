/**
 * No credential reaches the logs. Every way one crosses the api is exercised
 * (client secrets in the form and in HTTP Basic, wrong secrets, bearer
 * tokens good and bad, the authorization-code flow with the user's password
 * and the code, refresh and revocation, webhook signing secrets, pre-signed
 * media links and the provider URL they redirect to) against an app logging
 * at `trace`, its most verbose level, beside the harness's `info` one; then
 * no captured line may contain any of those values.
 */
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { collectionRows } from "./support/collection-rows.ts";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { authorizationCode, registerClient } from "./support/oauth-flow.ts";

const t = await startTestApi();
const verbose = await t.startAnotherApi({ environment: { LOG_LEVEL: "trace" } });
const verboseLines = verbose.logLines;
afterAll(() => verbose.stop());

/** The harness, aimed at the verbose app (the OAuth flow helpers send through `request`). */
const v = { ...t, request: (path: string, init: RequestInit = {}) => fetch(`${verbose.url}${path}`, init) };
const form = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  v.request(path, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString(),
  });
const bearer = (path: string, token: string, init: RequestInit = {}) =>
  v.request(path, {
    ...init,
    headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` },
    redirect: "manual",
  });

interface Tokens {
  readonly access_token: string;
  readonly refresh_token?: string;
}

const acme = await t.tenant("Logged Secrets Corp");
const redirectUri = "https://ledger-sync.example/oauth/callback";
const client = await registerClient(t, acme, {
  redirectUris: [redirectUri],
  scopes: ["company:read", "debts:read", "followups:read"],
});
/** Every credential the flows below see: none may be logged. */
const secrets = new Map<string, string>([
  ["tenant client secret", acme.client_secret],
  ["registered client secret", client.client_secret],
  ["user password", acme.user_password],
]);

describe("the logs", () => {
  it("hold no token, secret, password, code, signature or Authorization header value", async () => {
    // client_credentials, the secret in the form and then in HTTP Basic.
    const fromForm = await form("/oauth/token", {
      grant_type: "client_credentials",
      client_id: acme.client_id,
      client_secret: acme.client_secret,
    });
    expect(fromForm.status).toBe(200);
    const clientToken = ((await fromForm.json()) as Tokens).access_token;
    secrets.set("client_credentials access token", clientToken);
    const basic = `Basic ${Buffer.from(`${acme.client_id}:${acme.client_secret}`).toString("base64")}`;
    secrets.set("Basic authorization header", basic);
    const fromBasic = await form("/oauth/token", { grant_type: "client_credentials" }, { authorization: basic });
    expect(fromBasic.status).toBe(200);
    secrets.set("Basic access token", ((await fromBasic.json()) as Tokens).access_token);

    // A wrong secret, in the form and in Basic.
    const wrongSecret = `wrong-${randomBytes(16).toString("hex")}`;
    secrets.set("wrong client secret", wrongSecret);
    expect(
      (
        await form("/oauth/token", {
          grant_type: "client_credentials",
          client_id: acme.client_id,
          client_secret: wrongSecret,
        })
      ).status,
    ).toBe(401);
    const wrongBasic = `Basic ${Buffer.from(`${acme.client_id}:${wrongSecret}`).toString("base64")}`;
    secrets.set("wrong Basic authorization header", wrongBasic);
    expect(
      (await form("/oauth/token", { grant_type: "client_credentials" }, { authorization: wrongBasic })).status,
    ).toBe(401);

    // Bearer calls: accepted, refused for scope, and a forged token.
    expect((await bearer("/external-api/v1/company/profile", clientToken)).status).toBe(200);
    const narrow = await form("/oauth/token", {
      grant_type: "client_credentials",
      client_id: acme.client_id,
      client_secret: acme.client_secret,
      scope: "company:read",
    });
    const narrowToken = ((await narrow.json()) as Tokens).access_token;
    secrets.set("narrow access token", narrowToken);
    expect((await bearer("/external-api/v1/debts", narrowToken)).status).toBe(403);
    const forged = `dcat_${randomBytes(24).toString("base64url")}`;
    secrets.set("forged bearer token", forged);
    expect((await bearer("/external-api/v1/debts", forged)).status).toBe(401);

    // The authorization-code flow (password and code), the exchange, a refresh, a revocation.
    const code = await authorizationCode(v, acme, client, redirectUri, { scope: "company:read debts:read" });
    secrets.set("authorization code", code);
    const exchanged = await form("/oauth/token", {
      grant_type: "authorization_code",
      client_id: client.client_id,
      client_secret: client.client_secret,
      code,
      redirect_uri: redirectUri,
    });
    expect(exchanged.status).toBe(200);
    const user = (await exchanged.json()) as Required<Tokens>;
    secrets.set("user access token", user.access_token);
    secrets.set("user refresh token", user.refresh_token);
    expect((await bearer("/external-api/v1/company/profile", user.access_token)).status).toBe(200);
    const refreshed = await form("/oauth/token", {
      grant_type: "refresh_token",
      refresh_token: user.refresh_token,
      client_id: client.client_id,
      client_secret: client.client_secret,
    });
    expect(refreshed.status).toBe(200);
    const rotated = (await refreshed.json()) as Required<Tokens>;
    secrets.set("rotated access token", rotated.access_token);
    secrets.set("rotated refresh token", rotated.refresh_token);
    // Reusing the rotated-out refresh token is refused (and revokes the family): still not logged.
    expect(
      (
        await form("/oauth/token", {
          grant_type: "refresh_token",
          refresh_token: user.refresh_token,
          client_id: client.client_id,
          client_secret: client.client_secret,
        })
      ).status,
    ).toBe(400);
    const revoked = await form("/oauth/revoke", {
      token: rotated.refresh_token,
      client_id: client.client_id,
      client_secret: client.client_secret,
    });
    expect(revoked.status).toBe(200);

    // Webhook signing secrets, at creation and at rotation.
    const created = await bearer("/external-api/v1/webhooks/endpoints", clientToken, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: "http://127.0.0.1:9/logged" }),
    });
    expect(created.status).toBe(201);
    const endpoint = (
      await expectContract<{ data: { id: string; secret: string } }>(
        created,
        "post",
        "/external-api/v1/webhooks/endpoints",
      )
    ).data;
    secrets.set("webhook secret", endpoint.secret);
    const rotation = await bearer(`/external-api/v1/webhooks/endpoints/${endpoint.id}/rotate-secret`, clientToken, {
      method: "POST",
    });
    expect(rotation.status).toBe(200);
    secrets.set("rotated webhook secret", ((await rotation.json()) as { data: { secret: string } }).data.secret);

    // A pre-signed media link, followed to a provider URL that carries its own token.
    const rows = collectionRows(t.db, t.api.services.ids);
    const providerToken = `provider-${randomBytes(12).toString("hex")}`;
    secrets.set("media provider token", providerToken);
    const followup = await rows.followup(acme, await rows.debt(acme), {
      type: "call",
      audio_object_key: `https://recordings.example/call.mp3?token=${providerToken}`,
    });
    const read = await bearer(
      `/external-api/v1/followups/${t.api.services.ids.encode("followup", followup)}`,
      clientToken,
    );
    expect(read.status).toBe(200);
    const audioUrl = ((await read.json()) as { data: { audio_url: string } }).data.audio_url;
    secrets.set("media signature", new URL(audioUrl).searchParams.get("signature")!);
    const media = await v.request(new URL(audioUrl).pathname + new URL(audioUrl).search, { redirect: "manual" });
    expect(media.status).toBe(302);
    expect(media.headers.get("location")).toContain(providerToken);

    const lines = [...verboseLines, ...t.logLines];
    const routes = verboseLines.map((line) => (JSON.parse(line) as { route?: string | null }).route);
    // The requests were logged, so the absence below means something.
    expect(routes).toEqual(
      expect.arrayContaining([
        "/oauth/token",
        "/oauth/revoke",
        "/external-api/v1/company/profile",
        "/external-api/v1/media/:key",
      ]),
    );
    const leaks = [...secrets].filter(([, value]) => lines.some((line) => line.includes(value))).map(([name]) => name);
    expect(leaks).toEqual([]);
  });
});
