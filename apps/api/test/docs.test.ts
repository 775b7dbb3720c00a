/**
 * The developer documentation: `/docs` (Scalar, served from the installed
 * package), `/docs/guide`, their assets and security headers over HTTP, and
 * the reference in a real headless browser (Debian's chromium through
 * playwright-core): it loads with no console error, no failed request and
 * nothing from another origin, and lists every operation of the OpenAPI
 * document under its summary. A missing chromium fails these tests.
 */
import { readFileSync } from "node:fs";
import { mkdir, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HeadlessBrowser, launchChromium } from "./support/browser.ts";
import { startTestApi } from "./support/harness.ts";

const ARTIFACTS = join(import.meta.dirname, "artifacts");
const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"] as const;

const t = await startTestApi();

interface OpenApi {
  readonly paths: Record<string, Record<string, { readonly summary?: string }>>;
  readonly webhooks?: Record<string, Record<string, { readonly summary?: string }>>;
}

/** Every operation of the served document as Scalar's sidebar id suffix -> its summary. */
const documentOperations = async (): Promise<Map<string, string>> => {
  const document = (await (await t.request("/external-api/v1/openapi.json")).json()) as OpenApi;
  const operations = new Map<string, string>();
  const collect = (entries: OpenApi["paths"], key: (method: string, name: string) => string) => {
    for (const [name, item] of Object.entries(entries)) {
      for (const method of METHODS) {
        const operation = item[method];
        if (operation !== undefined) operations.set(key(method.toUpperCase(), name), operation.summary ?? name);
      }
    }
  };
  collect(document.paths, (method, path) => `${method}${path}`);
  // Scalar slugs webhook names in its ids (payment_plan.replaced -> payment-plan.replaced).
  collect(document.webhooks ?? {}, (method, name) => `webhook/${method}/${name.toLowerCase().replace(/[^a-z0-9.]+/g, "-")}`);
  return operations;
};

const cspDirectives = (header: string | null): Map<string, string> =>
  new Map((header ?? "").split(";").map((part) => {
    const [name = "", ...values] = part.trim().split(/\s+/);
    return [name, values.join(" ")] as const;
  }));

describe("GET /docs over HTTP", () => {
  it("serves the reference page with a nonce-based policy that allows this origin only", async () => {
    const response = await t.request("/docs");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await response.text();
    const nonce = /<meta property="csp-nonce" content="([^"]+)">/.exec(html)?.[1];
    expect(nonce).toMatch(/^[A-Za-z0-9+/]{24}$/);
    expect(Object.fromEntries(cspDirectives(response.headers.get("content-security-policy")))).toEqual({
      "default-src": "'none'",
      "script-src": "'self'",
      "style-src": `'self' 'nonce-${nonce}'`,
      "style-src-attr": "'unsafe-inline'",
      "img-src": "'self' data:",
      "font-src": "'self' data:",
      "connect-src": "'self'",
      "base-uri": "'none'",
      "form-action": "'self'",
      "frame-ancestors": "'none'",
    });
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    // Scripts are files of this origin, loaded in this order; nothing inline, nothing remote.
    expect([...html.matchAll(/<script\b[^>]*>/g)].map((match) => match[0])).toEqual([
      '<script src="/docs/assets/docs.js">',
      '<script src="/docs/assets/scalar.js">',
    ]);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    const again = await (await t.request("/docs")).text();
    expect(/content="([^"]+)">/.exec(again)?.[1]).not.toBe(nonce);
  });

  it("serves Scalar's browser build from the installed package, gzipped, revalidated by ETag", async () => {
    const require = createRequire(import.meta.url);
    const packaged = readFileSync(join(dirname(require.resolve("@scalar/api-reference")), "browser", "standalone.js"));
    const response = await t.request("/docs/assets/scalar.js", { headers: { "accept-encoding": "gzip" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(response.headers.get("content-encoding")).toBe("gzip");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(Buffer.from(await response.arrayBuffer()).equals(packaged)).toBe(true);
    const etag = response.headers.get("etag");
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}-gzip"$/);
    // What a browser sends when it revalidates (fetch would add `no-cache` to a bare If-None-Match).
    const revalidated = await t.request("/docs/assets/scalar.js", {
      headers: { "accept-encoding": "gzip", "if-none-match": etag!, "cache-control": "max-age=0" },
    });
    expect(revalidated.status).toBe(304);
    const plain = await t.request("/docs/assets/scalar.js", { headers: { "accept-encoding": "identity" } });
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(plain.headers.get("etag")).toBe(etag!.replace("-gzip", ""));
    expect(Buffer.from(await plain.arrayBuffer()).equals(packaged)).toBe(true);
  });

  it("serves the start script and the stylesheet with their types", async () => {
    const script = await t.request("/docs/assets/docs.js");
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(await script.text()).toContain('createApiReference("#reference"');
    const css = await t.request("/docs/assets/docs.css");
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(css.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("serves the getting-started guide without any script", async () => {
    const response = await t.request("/docs/guide");
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(cspDirectives(response.headers.get("content-security-policy")).get("default-src")).toBe("'none'");
    expect(cspDirectives(response.headers.get("content-security-policy")).has("script-src")).toBe(false);
    expect(html).not.toContain("<script");
    expect([...html.matchAll(/<h2 id="([a-z]+)">/g)].map((match) => match[1])).toEqual(["credentials", "client", "token", "debt", "snapshot", "sandbox", "errors"]);
    // How to obtain the client and install it, the snapshots entry's domain included.
    expect(html).toContain("npm install ../dc-packages/dc-client-0.1.0.tgz");
    expect(html).toContain("npm install ../dc-packages/dc-domain-0.1.0.tgz");
    expect(html).toContain("pnpm --filter @dc/json-text --filter @dc/domain --filter @dc/client pack");
    expect(html).toContain(`export BASE_URL=${t.api.url}`);
    expect(html).toContain("/oauth/token");
    expect(html).toContain("/external-api/v1/campaigns/$CAMPAIGN/snapshots/");
  });
});

describe("/docs in chromium", () => {
  let browser: HeadlessBrowser | undefined;
  let page: Page;

  beforeAll(async () => {
    browser = await launchChromium({ width: 1280, height: 900 });
    page = browser.page;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  it("renders every operation of the document, with no error and nothing from another origin", async () => {
    const problems: string[] = [];
    const requested: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") problems.push(`console.${message.type()}: ${message.text()}`);
    });
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("request", (request) => requested.push(request.url()));
    page.on("requestfailed", (request) => problems.push(`request failed: ${request.url()} ${request.failure()?.errorText}`));
    page.on("response", (response) => {
      if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
    });
    // Runs in the page before any of its scripts (the test's own code, outside the page's policy).
    await page.addInitScript({
      content: `window.cspViolations = [];
        document.addEventListener("securitypolicyviolation", (event) =>
          window.cspViolations.push({ directive: event.effectiveDirective, blocked: event.blockedURI }));`,
    });

    const expected = await documentOperations();
    expect(expected.size).toBeGreaterThan(40);
    await page.goto(`${t.api.url}/docs`, { timeout: 60_000 });
    const operationId = /^[^/]+\/tag\/[^/]+\/((?:webhook\/)?(?:GET|PUT|POST|DELETE|PATCH|HEAD|OPTIONS|TRACE)\/?.*)$/;
    const sidebar = async () =>
      (
        await page.locator("li[data-sidebar-id]").evaluateAll((items) =>
          items.map((item) => [
            item.getAttribute("data-sidebar-id") ?? "",
            item.querySelector('[class~="group/button-label"]')?.textContent?.trim() ?? "",
          ]),
        )
      ).flatMap(([id = "", label = ""]) => {
        const key = operationId.exec(id)?.[1];
        return key === undefined ? [] : [[key, label] as const];
      });
    await expect.poll(async () => (await sidebar()).length, { timeout: 90_000, interval: 1_000 }).toBe(expected.size);
    expect(new Map(await sidebar())).toEqual(expected);
    // Every operation also has its section in the reference body. The body renders after the sidebar and
    // section by section, so it is read until every section is there (or the poll's timeout names the missing).
    const missingSections = async () => {
      const sections = await page.locator("[id*='/tag/']").evaluateAll((elements) => elements.map((element) => element.id));
      return [...expected.keys()].filter((key) => !sections.some((id) => id.endsWith(`/${key}`)));
    };
    await expect.poll(missingSections, { timeout: 60_000, interval: 500 }).toEqual([]);

    await expect(page.title()).resolves.toBe("API reference · Debt Collection Platform");
    await mkdir(ARTIFACTS, { recursive: true });
    const screenshot = join(ARTIFACTS, "docs.png");
    await page.screenshot({ path: screenshot });
    expect((await stat(screenshot)).size).toBeGreaterThan(30_000);

    expect(problems).toEqual([]);
    expect(requested.filter((url) => !url.startsWith(`${t.api.url}/`) && !url.startsWith("data:"))).toEqual([]);
    expect(new Set(requested.map((url) => new URL(url).pathname))).toEqual(
      new Set(["/docs", "/docs/assets/docs.css", "/docs/assets/docs.js", "/docs/assets/scalar.js", "/external-api/v1/openapi.json"]),
    );
    // The one violation: a bundled schema library probing whether eval works (it falls back when refused).
    const violations = (await page.evaluate("window.cspViolations")) as ReadonlyArray<unknown>;
    expect(violations.filter((v) => JSON.stringify(v) !== JSON.stringify({ directive: "script-src", blocked: "eval" }))).toEqual([]);
  }, 180_000);

  it("the guide fits a 390 px wide phone: nothing scrolls sideways but the code blocks themselves", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${t.api.url}/docs/guide`);
      const overflow = await page.locator("html").evaluate((root) => {
        const width = root.clientWidth;
        // An element inside a <pre> may extend past the edge: the <pre> scrolls it (overflow-x: auto).
        const sticking = [...root.querySelectorAll("body *")]
          .filter((element) => element.closest("pre") === null || element.tagName === "PRE")
          .filter((element) => element.getBoundingClientRect().right > width + 0.5)
          .map((element) => `${element.tagName.toLowerCase()}: ${(element.textContent ?? "").trim().slice(0, 60)}`);
        return { width, scrollWidth: root.scrollWidth, sticking };
      });
      expect(overflow).toEqual({ width: 390, scrollWidth: 390, sticking: [] });
      await mkdir(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, "docs-guide-390.png"), fullPage: true });
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it("the guide renders with its own stylesheet and links back to the reference", async () => {
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });
    await page.goto(`${t.api.url}/docs/guide`);
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Getting started");
    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "docs-guide.png"), fullPage: true });
    expect(await page.locator(".docs-bar").evaluate((bar) => bar.ownerDocument.defaultView?.getComputedStyle(bar).display)).toBe("flex");
    await Promise.all([page.waitForURL(`${t.api.url}/docs`), page.getByRole("link", { name: "API reference" }).first().click()]);
    expect(problems).toEqual([]);
  });
});
