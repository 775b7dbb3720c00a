/**
 * The authorization pages in a real headless browser (Debian's chromium,
 * driven by playwright-core): sign in with the keyboard, approve, follow the
 * redirect to a local receiver and exchange the code; deny; a form without
 * its anti-forgery token is refused; the page cannot be framed. A missing
 * chromium fails these tests: it never skips them.
 */
import { mkdir, stat } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { s256Challenge } from "../src/oauth/pkce.ts";
import { type HeadlessBrowser, launchChromium } from "./support/browser.ts";
import { startTestApi } from "./support/harness.ts";
import { authorizePath, registerClient } from "./support/oauth-flow.ts";

/** Generous waits: CI runs many test files, and two browsers, at once. */
const WAIT = 20_000;
const ARTIFACTS = join(import.meta.dirname, "artifacts");

const t = await startTestApi();
const acme = await t.tenant("Acme Collections");

/** The client's redirect URI: records every request and shows a plain page. */
const received: URL[] = [];
const receiver: Server = createServer((request, response) => {
  const url = new URL(request.url ?? "/", "http://127.0.0.1");
  if (url.pathname === "/framing") {
    response.writeHead(200, { "content-type": "text/html" });
    response.end(
      `<!doctype html><title>framing</title><iframe name="victim" src="${t.api.url}${url.searchParams.get("src") ?? ""}"></iframe>`,
    );
    return;
  }
  // Only the callbacks count (browsers also ask for /favicon.ico).
  if (url.pathname === "/callback") received.push(url);
  response.writeHead(200, { "content-type": "text/html" });
  response.end("<!doctype html><title>Connected</title><p>Connected</p>");
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const receiverPort = (receiver.address() as { port: number }).port;
const redirectUri = `http://127.0.0.1:${receiverPort}/callback`;
const client = await registerClient(t, acme, { redirectUris: [redirectUri], name: "Ledger Sync" });

let browser: HeadlessBrowser | undefined;
let page: Page;

beforeAll(async () => {
  browser = await launchChromium({ width: 1200, height: 900 });
  page = browser.page;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => receiver.close(resolve));
});

const authorizeUrl = (extra: Record<string, string> = {}) =>
  `${t.api.url}${authorizePath({
    response_type: "code",
    client_id: client.client_id,
    redirect_uri: redirectUri,
    scope: "debts:read company:read",
    state: "browser-state-1",
    ...extra,
  })}`;

describe("the consent page in chromium", { timeout: 60_000 }, () => {
  it("signs in with the keyboard, approves, follows the redirect and exchanges the code (PKCE)", async () => {
    const verifier = "browser-verifier-0123456789-abcdefghijklmnopqrstuvwxyz";
    await page.goto(authorizeUrl({ code_challenge: s256Challenge(verifier), code_challenge_method: "S256" }));
    await page.getByRole("heading", { level: 1, name: "Sign in to continue" }).waitFor({ timeout: WAIT });
    expect(await page.title()).toBe("Sign in · Debt Collection Platform");
    // The e-mail field has focus on arrival; the whole sign-in works from the keyboard.
    expect(await page.locator(":focus").getAttribute("id")).toBe("email");
    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "sign-in.png"), fullPage: true });
    await page.keyboard.type(acme.user_email);
    await page.keyboard.press("Tab");
    expect(await page.locator(":focus").getAttribute("id")).toBe("password");
    await page.keyboard.type(acme.user_password);
    const [signedIn] = await Promise.all([
      page.waitForResponse((candidate) => candidate.request().method() === "POST", { timeout: WAIT }),
      page.keyboard.press("Enter"),
    ]);
    expect(signedIn.status()).toBe(303);
    await page
      .getByRole("heading", { level: 1, name: "Allow Ledger Sync to access your company's data?" })
      .waitFor({ timeout: WAIT });
    const scopes = await page.getByRole("list").textContent();
    expect(scopes).toContain("Read debts");
    expect(scopes).toContain("Company profile, statistics and credits");
    expect(scopes).not.toContain("Create, update and delete debts");
    expect(await page.getByText(acme.user_email).count()).toBe(1);

    const screenshot = join(ARTIFACTS, "consent.png");
    await page.screenshot({ path: screenshot, fullPage: true });
    expect((await stat(screenshot)).size).toBeGreaterThan(20_000);

    await Promise.all([
      page.waitForURL(`${redirectUri}?**`),
      page.getByRole("button", { name: "Allow access" }).click(),
    ]);
    const callback = new URL(page.url());
    expect(callback.searchParams.get("state")).toBe("browser-state-1");
    expect(callback.searchParams.get("iss")).toBe(t.api.url);
    const code = callback.searchParams.get("code");
    expect(code).toMatch(/^dcac_[A-Za-z0-9_-]{43}$/);
    expect(received.at(-1)?.searchParams.get("code")).toBe(code);

    const response = await t.tokenResponse({
      grant_type: "authorization_code",
      client_id: client.client_id,
      client_secret: client.client_secret,
      code: code!,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    });
    expect(response.status).toBe(200);
    const tokens = (await response.json()) as { access_token: string; refresh_token: string; scope: string };
    expect(tokens.scope).toBe("debts:read company:read");
    expect(tokens.refresh_token).toMatch(/^dcrt_/);
    expect((await t.get("/external-api/v1/company/profile", tokens.access_token)).status).toBe(200);
  });

  it("denies: the browser goes back to the client with access_denied and the state", async () => {
    await page.goto(authorizeUrl({ state: "deny-state" }));
    await page.getByRole("button", { name: "Deny" }).waitFor({ timeout: WAIT });
    await Promise.all([page.waitForURL(`${redirectUri}?**`), page.getByRole("button", { name: "Deny" }).click()]);
    const callback = new URL(page.url());
    expect(callback.searchParams.get("error")).toBe("access_denied");
    expect(callback.searchParams.get("state")).toBe("deny-state");
    expect(callback.searchParams.get("iss")).toBe(t.api.url);
    expect(callback.searchParams.has("code")).toBe(false);
  });

  it("refuses a post without its anti-forgery token and sends nothing to the client", async () => {
    const before = received.length;
    await page.goto(authorizeUrl({ state: "csrf-state" }));
    const approveForm = page.locator("form", { has: page.getByRole("button", { name: "Allow access" }) });
    await approveForm.locator('input[name="csrf_token"]').evaluate((input) => input.remove());
    const [response] = await Promise.all([
      page.waitForResponse((candidate) => candidate.request().method() === "POST"),
      page.getByRole("button", { name: "Allow access" }).click(),
    ]);
    expect(response.status()).toBe(403);
    await page.getByRole("heading", { level: 1, name: "This form has expired" }).waitFor({ timeout: WAIT });
    expect(page.url().startsWith(redirectUri)).toBe(false);
    expect(received.length).toBe(before);
  });

  it("cannot be framed by another site", async () => {
    const src = authorizePath({ response_type: "code", client_id: client.client_id, redirect_uri: redirectUri });
    await page.goto(`http://127.0.0.1:${receiverPort}/framing?src=${encodeURIComponent(src)}`);
    await expect.poll(() => page.frame({ name: "victim" })?.url(), { timeout: WAIT }).toMatch(/^chrome-error:/);
    expect(await page.frameLocator("iframe").getByRole("button").count()).toBe(0);
  });
});
