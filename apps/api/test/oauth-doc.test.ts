/**
 * docs/oauth.md, run as written: its shell blocks, in order, against the api
 * on a real socket, the way an integrator pastes them into one terminal, with
 * the same rewrites as the README's quick path (the api's address and the
 * `.data` folder). The tenant is the README's, made by the README's own
 * block. The user's part of the authorization (step 2, a browser, not a shell
 * block) is done in headless chromium: the URL is the doc's, filled with the
 * variables the blocks before it set; the admin user signs in and approves,
 * and the redirect to the client's callback (an address that does not exist)
 * is caught. The blocks after it run with that callback URL in `CALLBACK`, as
 * the doc tells the reader to set it. A command or an answer the doc no
 * longer gets right fails here.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { repositoryRoot } from "@dc/db";
import { afterAll, describe, expect, it } from "vitest";
import { launchChromium } from "./support/browser.ts";
import { startTestApi } from "./support/harness.ts";
import { assignedNames, markdownSection, runShellBlocks, shellBlocks } from "./support/shell-blocks.ts";

const WAIT = 20_000;
const REDIRECT_URI = "https://ledger-sync.example/oauth/callback";

const t = await startTestApi();
const root = repositoryRoot(import.meta.dirname);
const dataDirectory = await mkdtemp(join(tmpdir(), "dc-oauth-doc-"));
afterAll(() => rm(dataDirectory, { recursive: true, force: true }));

const doc = await readFile(join(root, "docs/oauth.md"), "utf8");
const readme = await readFile(join(root, "README.md"), "utf8");
const BROWSER_STEP = "2. Send the user's browser";
/** What the reader runs before sending the user's browser away, and after it comes back. */
const beforeBrowser = shellBlocks(markdownSection(doc, "## Authentication", BROWSER_STEP));
const afterBrowser = shellBlocks(markdownSection(doc, BROWSER_STEP));
/** The doc's authorization URL: the block of step 2 without a language, one URL over several lines. */
const authorizeTemplate = /^ *```\n([\s\S]*?)^ *```$/m
  .exec(markdownSection(doc, BROWSER_STEP))?.[1]
  ?.replace(/\s+/g, "");
/** The README's first step, which makes the tenant this doc starts from. */
const tenantBlock =
  shellBlocks(markdownSection(readme, "## From zero to a token and a debt", "## Going further"))[0] ?? "";

const run = (blocks: string[], extra: { before?: string; after?: string; environment?: Record<string, string> }) =>
  runShellBlocks(blocks, {
    cwd: root,
    apiUrl: t.api.url,
    dataDirectory,
    ...extra,
    environment: { DATABASE_URL: t.databaseUrl, ...extra.environment },
  });

/** The values of `names` in a file written by `declare -p`, read back by bash itself. */
const readVariables = async (file: string, names: string[]): Promise<Record<string, string>> => {
  const { stdout } = await promisify(execFile)(
    "bash",
    ["-c", 'source "$1"; shift; for name; do printf "%s\\0" "${!name}"; done', "bash", file, ...names],
    { encoding: "utf8" },
  );
  const values = stdout.split("\0");
  return Object.fromEntries(names.map((name, index) => [name, values[index] ?? ""]));
};

/**
 * The address the user's browser is sent back to after the tenant's admin
 * user signs in and approves. The approval is answered 303 to the client's
 * callback, which does not exist; playwright does not route a redirect's
 * target, so the approval itself is routed: sent on unchanged, its answer's
 * `Location` kept, and the browser shown the page a callback would show.
 */
const approveInChromium = async (authorizeUrl: string, user: { email: string; password: string }) => {
  const browser = await launchChromium({ width: 1200, height: 900 });
  try {
    const { context, page } = browser;
    await page.goto(authorizeUrl);
    await page.getByRole("heading", { level: 1, name: "Sign in to continue" }).waitFor({ timeout: WAIT });
    await page.getByLabel("Work e-mail").fill(user.email);
    await page.getByLabel("Password").fill(user.password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page
      .getByRole("heading", { level: 1, name: "Allow Ledger Sync to access your company's data?" })
      .waitFor({ timeout: WAIT });

    const callbacks: string[] = [];
    await context.route(
      (url) => url.href.startsWith(`${new URL(authorizeUrl).origin}/oauth/authorize`),
      async (route) => {
        if (route.request().method() !== "POST") return route.fallback();
        const answer = await route.fetch({ maxRedirects: 0 });
        const location = answer.headers()["location"] ?? "";
        if (answer.status() !== 303 || !location.startsWith(`${REDIRECT_URI}?`))
          return route.fulfill({ response: answer });
        callbacks.push(location);
        return route.fulfill({
          status: 200,
          contentType: "text/html",
          body: "<!doctype html><title>Connected</title><p>Connected to Ledger Sync</p>",
        });
      },
    );
    await page.getByRole("button", { name: "Allow access" }).click();
    await page.getByText("Connected to Ledger Sync").waitFor({ timeout: WAIT });
    expect(callbacks).toHaveLength(1);
    return new URL(callbacks[0] ?? "");
  } finally {
    await browser.close();
  }
};

describe("docs/oauth.md", { timeout: 120_000 }, () => {
  it("has the shell steps it describes, and the authorization URL of step 2", () => {
    expect(beforeBrowser.length).toBe(5);
    expect(beforeBrowser[0]).toContain("cli client create");
    expect(beforeBrowser.at(-1)).toContain("CODE_VERIFIER=");
    expect(afterBrowser.length).toBe(4);
    expect(afterBrowser[0]).toContain("CALLBACK");
    expect(afterBrowser.at(-1)).toContain("/oauth/revoke");
    expect(authorizeTemplate).toMatch(/^\$BASE\/oauth\/authorize\?response_type=code&/);
    expect(tenantBlock).toContain("cli tenant create");
  });

  it("takes an integrator from a new client through client_credentials, consent, refresh and revocation", async () => {
    const names = assignedNames(beforeBrowser);
    const kept = join(dataDirectory, "before-browser.sh");
    const first = await run(beforeBrowser, { before: tenantBlock, after: `declare -p ${names.join(" ")} > "${kept}"` });
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    const [created, discovery, credentials, withToken, pkce] = first.outputs;
    const tenant = JSON.parse(await readFile(join(dataDirectory, "tenant.json"), "utf8")) as Record<string, string>;

    const client = JSON.parse(created ?? "") as Record<string, unknown>;
    expect(client).toMatchObject({
      client_id: expect.stringMatching(/^dcc_/),
      client_secret: expect.stringMatching(/^dcs_/),
    });
    expect(JSON.parse(await readFile(join(dataDirectory, "ledger-sync.json"), "utf8"))).toEqual(client);

    expect(JSON.parse(discovery ?? "")).toMatchObject({
      issuer: t.api.url,
      authorization_endpoint: `${t.api.url}/oauth/authorize`,
      authorization_response_iss_parameter_supported: true,
    });

    const token = JSON.parse(credentials ?? "") as Record<string, unknown>;
    expect(token).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "debts:read company:read" });
    expect(token).not.toHaveProperty("refresh_token");
    const profile = JSON.parse(withToken ?? "") as Record<string, unknown>;
    expect(profile).toMatchObject({ error: false, data: { id: tenant["company_id"], name: "Acme Collections" } });
    expect(pkce).toBe("");

    const variables = await readVariables(kept, names);
    expect(variables).toMatchObject({ BASE: t.api.url, CLIENT_ID: client["client_id"], REDIRECT_URI });
    const authorizeUrl = (authorizeTemplate ?? "").replace(/\$([A-Z_]+)/g, (_, name: string) => variables[name] ?? "");
    const callback = await approveInChromium(authorizeUrl, {
      email: tenant["user_email"] ?? "",
      password: tenant["user_password"] ?? "",
    });
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT_URI);
    expect(callback.searchParams.get("state")).toBe(variables["STATE"]);
    expect(callback.searchParams.get("iss")).toBe(t.api.url);
    expect(callback.searchParams.get("code")).toMatch(/^dcac_/);

    const last = join(dataDirectory, "after-browser.sh");
    const second = await run(afterBrowser, {
      before: `source "${kept}"`,
      after: `declare -p ACCESS_TOKEN REFRESH_TOKEN > "${last}"`,
      environment: { CALLBACK: callback.href },
    });
    expect(second.stderr).toBe("");
    expect(second.code).toBe(0);
    const [fromCallback, exchanged, refreshed, revoked] = second.outputs;
    expect(fromCallback).toBe("");

    // The code exchange and the refresh answer alike, as the doc's comments show them.
    const tokenAnswer = {
      token_type: "Bearer",
      expires_in: 3600,
      scope: "debts:read company:read",
      refresh_token: expect.stringMatching(/^dcrt_/),
    };
    const grant = JSON.parse(exchanged ?? "") as Record<string, unknown>;
    expect(grant).toMatchObject(tokenAnswer);
    const renewed = JSON.parse(refreshed ?? "") as Record<string, unknown>;
    expect(renewed).toMatchObject(tokenAnswer);
    expect(renewed["refresh_token"]).not.toBe(grant["refresh_token"]);
    expect(renewed["access_token"]).not.toBe(grant["access_token"]);

    expect(JSON.parse(revoked ?? "")).toEqual({});
    expect(
      t.logLines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line["route"] === "/oauth/revoke")
        .map((line) => line["status"]),
    ).toEqual([200]);

    // The variables held the newest tokens, and the revocation ended the whole authorization.
    const final = await readVariables(last, ["ACCESS_TOKEN", "REFRESH_TOKEN"]);
    expect(final).toEqual({ ACCESS_TOKEN: renewed["access_token"], REFRESH_TOKEN: renewed["refresh_token"] });
    const again = await t.tokenResponse({
      grant_type: "refresh_token",
      refresh_token: final["REFRESH_TOKEN"] ?? "",
      client_id: String(client["client_id"]),
      client_secret: String(client["client_secret"]),
    });
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: "invalid_grant" });
    const call = await t.get("/external-api/v1/company/profile", final["ACCESS_TOKEN"]);
    expect(call.status).toBe(401);
    expect(call.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });
});
