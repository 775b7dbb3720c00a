/**
 * The sign-in and consent forms: anti-forgery tokens, password checks, the
 * company boundary, login sessions (fixation, expiry, sign-out), approval
 * and denial, and the cookie's attributes in development and production.
 */
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { createApp } from "../src/app.ts";
import { createInFlight } from "../src/http/in-flight.ts";
import { startTestApi } from "./support/harness.ts";
import { authorizePath, csrfTokenOf, formAgent, registerClient } from "./support/oauth-flow.ts";

const t = await startTestApi();
const acme = await t.tenant("Acme Collections");
const globex = await t.tenant("Globex");
const redirectUri = "https://ledger-sync.example/oauth/callback";
const client = await registerClient(t, acme, { redirectUris: [redirectUri] });
const globexClient = await registerClient(t, globex, { redirectUris: [redirectUri], name: "Globex sync" });
const request = {
  response_type: "code",
  client_id: client.client_id,
  redirect_uri: redirectUri,
  state: "st-7",
  scope: "debts:read",
};
const sameCompanyClient = await registerClient(t, acme, {
  redirectUris: [redirectUri],
  name: "Other Acme app",
  scopes: ["debts:read", "debts:write", "company:read"],
});
const acmeUser = { email: acme.user_email, password: acme.user_password };

/** An agent on the sign-in page of `parameters`, with its form token. */
const onSignInPage = async (parameters: Record<string, string> = request) => {
  const agent = formAgent(t);
  const page = await agent.get(authorizePath(parameters));
  expect(page.status).toBe(200);
  return { agent, csrf: csrfTokenOf(await page.text()) };
};

const signIn = async (user: { email: string; password: string }, parameters: Record<string, string> = request) => {
  const { agent, csrf } = await onSignInPage(parameters);
  const response = await agent.post("/oauth/authorize", {
    ...parameters,
    csrf_token: csrf,
    action: "sign_in",
    ...user,
  });
  return { agent, response };
};

const sessionCount = async () =>
  (
    await t.db
      .selectFrom("oauth_login_sessions")
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .executeTakeFirstOrThrow()
  ).n;
const codeCount = async () =>
  (
    await t.db
      .selectFrom("oauth_authorization_codes")
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .executeTakeFirstOrThrow()
  ).n;

describe("anti-forgery tokens", () => {
  it("refuses a sign-in without the token, or with another browser's token", async () => {
    const sessions = await sessionCount();
    const { agent } = await onSignInPage();
    const { csrf: foreign } = await onSignInPage();
    for (const csrf of [undefined, foreign, "", "x".repeat(43)]) {
      const response = await agent.post("/oauth/authorize", {
        ...request,
        ...(csrf === undefined ? {} : { csrf_token: csrf }),
        action: "sign_in",
        ...acmeUser,
      });
      expect(response.status).toBe(403);
      expect(await response.text()).toContain("This form has expired");
    }
    expect(await sessionCount()).toBe(sessions);
  });

  it("refuses an approval posted without the consent page's token", async () => {
    const { agent, response } = await signIn(acmeUser);
    expect(response.status).toBe(303);
    const codes = await codeCount();
    const approval = await agent.post("/oauth/authorize", { ...request, action: "approve" });
    expect(approval.status).toBe(403);
    expect(approval.headers.get("location")).toBeNull();
    expect(await codeCount()).toBe(codes);
  });

  it("refuses any post from a browser without the cookie", async () => {
    const { csrf } = await onSignInPage();
    const stranger = formAgent(t);
    expect((await stranger.post("/oauth/authorize", { ...request, csrf_token: csrf, action: "deny" })).status).toBe(
      403,
    );
  });
});

describe("signing in", () => {
  it("refuses a wrong password, an unknown e-mail and a disabled user alike", async () => {
    const sessions = await sessionCount();
    const other = await t.tenant("Disabled Inc");
    await t.db.updateTable("users").set({ disabled_at: t.clock.now() }).where("email", "=", other.user_email).execute();
    for (const user of [
      { ...acmeUser, password: `${acmeUser.password}x` },
      { email: "nobody@acme.example", password: "whatever" },
      { email: other.user_email, password: other.user_password },
    ]) {
      const { response } = await signIn(user);
      expect(response.status).toBe(400);
      expect(await response.text()).toContain("Incorrect e-mail or password.");
    }
    expect(await sessionCount()).toBe(sessions);
  });

  it("accepts the e-mail in any case, and gives a new cookie on sign-in (no fixation)", async () => {
    const { agent, csrf } = await onSignInPage();
    const before = [...agent.cookies.values()][0];
    const response = await agent.post("/oauth/authorize", {
      ...request,
      csrf_token: csrf,
      action: "sign_in",
      ...acmeUser,
      email: acme.user_email.toUpperCase(),
    });
    expect(response.status).toBe(303);
    const back = new URL(response.headers.get("location")!, t.api.url);
    expect(back.pathname).toBe("/oauth/authorize");
    expect(Object.fromEntries(back.searchParams)).toEqual(request);
    expect([...agent.cookies.values()][0]).not.toBe(before);
    const consent = await agent.get(response.headers.get("location")!);
    expect(consent.status).toBe(200);
    expect(await consent.text()).toContain("Allow Ledger Sync to access your company's data?");
  });

  it("does not let a user authorize a client of another company", async () => {
    const sessions = await sessionCount();
    const { response } = await signIn({ email: globex.user_email, password: globex.user_password });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain("This account can&#39;t authorize Ledger Sync");
    expect(await sessionCount()).toBe(sessions);
  });

  it("shows a signed-in user a foreign client's page only as a wrong account, and refuses the approval", async () => {
    const foreign = { ...request, client_id: globexClient.client_id };
    const { agent } = await signIn(acmeUser);
    const page = await agent.get(authorizePath(foreign));
    expect(page.status).toBe(403);
    const html = await page.text();
    expect(html).toContain("This account can't authorize Globex sync");
    const codes = await codeCount();
    const approval = await agent.post("/oauth/authorize", {
      ...foreign,
      csrf_token: csrfTokenOf(html),
      action: "approve",
    });
    expect(approval.status).toBe(403);
    expect(await codeCount()).toBe(codes);
  });
});

describe("the decision is the one displayed", () => {
  it.each([
    ["its hidden scope widened", { scope: "debts:read company:read" }],
    ["its client_id changed to another client of the company", { client_id: sameCompanyClient.client_id }],
    ["its state changed", { state: "st-8" }],
    ["a PKCE challenge removed", { code_challenge: undefined, code_challenge_method: undefined }],
  ])("refuses a consent form re-posted with %s, and issues no code", async (_case, change) => {
    const shown = { ...request, code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256" };
    const { agent } = await signIn(acmeUser, shown);
    const consent = await agent.get(authorizePath(shown));
    expect(consent.status).toBe(200);
    const csrf = csrfTokenOf(await consent.text());
    const tampered = Object.fromEntries(
      Object.entries({ ...shown, ...change }).filter((entry): entry is [string, string] => entry[1] !== undefined),
    );
    const codes = await codeCount();
    const refused = await agent.post("/oauth/authorize", { ...tampered, csrf_token: csrf, action: "approve" });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("location")).toBeNull();
    expect(await refused.text()).toContain("the form was refused");
    expect(await codeCount()).toBe(codes);
    // The form as shown is still accepted: the code holds exactly what the page displayed.
    const approved = await agent.post("/oauth/authorize", { ...shown, csrf_token: csrf, action: "approve" });
    expect(approved.status).toBe(303);
    expect(new URL(approved.headers.get("location")!).searchParams.get("state")).toBe("st-7");
    const row = await t.db
      .selectFrom("oauth_authorization_codes")
      .select(["scopes", "client_pk", "code_challenge"])
      .orderBy("id", "desc")
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ scopes: ["debts:read"], client_pk: client.id, code_challenge: shown.code_challenge });
  });

  it("refuses a sign-in form re-posted for another client than the page showed", async () => {
    const { agent, csrf } = await onSignInPage();
    const sessions = await sessionCount();
    const response = await agent.post("/oauth/authorize", {
      ...request,
      client_id: sameCompanyClient.client_id,
      csrf_token: csrf,
      action: "sign_in",
      ...acmeUser,
    });
    expect(response.status).toBe(403);
    expect(await sessionCount()).toBe(sessions);
  });
});

describe("the session", () => {
  it("approves into a code bound to the user, the client and the request", async () => {
    const { agent } = await signIn(acmeUser);
    const consent = await agent.get(authorizePath(request));
    const approval = await agent.post("/oauth/authorize", {
      ...request,
      csrf_token: csrfTokenOf(await consent.text()),
      action: "approve",
    });
    expect(approval.status).toBe(303);
    const location = new URL(approval.headers.get("location")!);
    expect(location.searchParams.get("state")).toBe("st-7");
    expect(location.searchParams.getAll("iss")).toEqual([t.api.url]);
    const row = await t.db
      .selectFrom("oauth_authorization_codes")
      .selectAll()
      .orderBy("id", "desc")
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      client_pk: client.id,
      redirect_uri: redirectUri,
      scopes: ["debts:read"],
      consumed_at: null,
    });
    expect(row.expires_at.getTime() - t.clock.now().getTime()).toBe(300_000);
    // Only the hash is stored.
    expect(row.code_hash.toString("utf8")).not.toContain(location.searchParams.get("code"));
  });

  it("denies into access_denied, issuing no code", async () => {
    const codes = await codeCount();
    const { agent } = await signIn(acmeUser);
    const consent = await agent.get(authorizePath(request));
    const denial = await agent.post("/oauth/authorize", {
      ...request,
      csrf_token: csrfTokenOf(await consent.text()),
      action: "deny",
    });
    expect(denial.status).toBe(303);
    const location = new URL(denial.headers.get("location")!);
    expect(Object.fromEntries(location.searchParams)).toEqual({
      error: "access_denied",
      error_description: "The user denied the request",
      state: "st-7",
      iss: t.api.url,
    });
    expect(await codeCount()).toBe(codes);
  });

  it("ends after one hour, and on sign-out", async () => {
    const { agent } = await signIn(acmeUser);
    const consent = await agent.get(authorizePath(request));
    expect(await consent.text()).toContain("Allow access");
    t.clock.advance(3_600_000);
    expect(await (await agent.get(authorizePath(request))).text()).toContain("Sign in to continue");

    const fresh = await signIn(acmeUser);
    const page = await fresh.agent.get(authorizePath(request));
    const signOut = await fresh.agent.post("/oauth/authorize", {
      ...request,
      csrf_token: csrfTokenOf(await page.text()),
      action: "sign_out",
    });
    expect(signOut.status).toBe(303);
    expect(await (await fresh.agent.get(authorizePath(request))).text()).toContain("Sign in to continue");
    const revoked = await t.db
      .selectFrom("oauth_login_sessions")
      .select("revoked_at")
      .orderBy("id", "desc")
      .executeTakeFirstOrThrow();
    expect(revoked.revoked_at).not.toBeNull();
  });

  it("refuses an approval once the session is over", async () => {
    const { agent } = await signIn(acmeUser);
    const csrf = csrfTokenOf(await (await agent.get(authorizePath(request))).text());
    t.clock.advance(3_600_000);
    const approval = await agent.post("/oauth/authorize", { ...request, csrf_token: csrf, action: "approve" });
    expect(approval.status).toBe(400);
    expect(await approval.text()).toContain("Your sign-in has ended");
  });

  it("sets an HttpOnly SameSite=Lax cookie, __Host- and Secure in production", async () => {
    const development = await formAgent(t).get(authorizePath(request));
    expect(development.headers.get("set-cookie")).toMatch(
      /^dc_oauth_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=3600; HttpOnly; SameSite=Lax$/,
    );

    const production = createApp(
      { ...t.api.services, config: { ...t.api.services.config, environment: "production" } },
      createInFlight(t.api.services.config.maxConcurrentRequestsPerCompany),
    );
    const server = production.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      const response = await fetch(
        `http://127.0.0.1:${(server.address() as AddressInfo).port}${authorizePath(request)}`,
      );
      expect(response.headers.get("set-cookie")).toMatch(
        /^__Host-dc_oauth_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=3600; HttpOnly; SameSite=Lax; Secure$/,
      );
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("answers a form that is not url-encoded, or too large, with an error page", async () => {
    const json = await t.request("/oauth/authorize", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(json.status).toBe(415);
    expect(json.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const large = await t.request("/oauth/authorize", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `state=${"x".repeat(20_000)}`,
    });
    expect(large.status).toBe(413);
  });
});
