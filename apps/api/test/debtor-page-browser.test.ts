/**
 * The debtor page in a real headless browser (Debian's chromium, driven by
 * playwright-core; docs/decisions/0670-0673): a sandbox company's day-0
 * e-mail is sent by the real worker process when the sandbox clock
 * advances, its link is read from GET /sandbox/messages, and the debtor
 * opens it, switches to English, passes the identity check, pays part
 * through the sandbox checkout, proposes a plan and disputes with a PDF
 * attached (docs/decisions/0674), which the company then downloads. The key
 * pages again on a 390x844 phone viewport, without sideways scrolling,
 * where a dispute's file that is none of the allowed types is refused by
 * name before a photo is accepted. axe-core runs on each kind of page
 * (identity check in French, debt, sandbox checkout, debt with notices; on
 * the phone the first three and the debt with the refused file) and finds no
 * `serious` or `critical` violation (a planted nameless button shows it
 * would). Its source is evaluated through the DevTools protocol, which the
 * page's CSP does not govern, so the page is checked under its real policy.
 * A missing chromium fails these tests: it never skips them.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTenant } from "../src/admin/tenants.ts";
import { type HeadlessBrowser, launchChromium } from "./support/browser.ts";
import { startTestApi } from "./support/harness.ts";
import { jsonApi } from "./support/json-api.ts";
import { startWorkerProcess } from "./support/webhooks-support.ts";

/** Generous waits: CI runs many test files, and two browsers, at once. */
const WAIT = 20_000;

const t = await startTestApi();
const api = jsonApi(t.request);
const { ids } = t.api.services;
const worker = startWorkerProcess(t.databaseUrl, { PUBLIC_BASE_URL: t.api.url });

/** Monday 23 November 2026, 09:30 in Paris: inside the default timeline's window. */
const START = new Date("2026-11-23T08:30:00Z");
const tenant = await createTenant(t.db, ids, "Browser Sandbox", { sandbox: true, now: START });
const token = await t.token(tenant);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read JSON bodies field by field
type Json = Record<string, any>;

const read = async (path: string): Promise<Json> => {
  const response = await api.get(path, token);
  expect(response.status, `${path}: ${await response.clone().text()}`).toBe(200);
  return (await response.json()) as Json;
};

const createDebt = async (email: string) => {
  const response = await api.post("/external-api/v1/debts", token, {
    lastname: "Lefèvre-Dupont",
    firstname: "Amélie",
    email,
    postal_code: "75011",
    country: "FR",
    amount: 250,
    currency: "EUR",
    object: "Winter heating, invoice F-2026-118",
    due_date: "2026-10-01",
    timeline_id: tenant.timeline_id,
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as Json)["data"]["id"] as string;
};

/** A receipt as a PDF and a photo as a PNG: their first bytes are what the page checks. */
const RECEIPT = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n");
const PHOTO = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1]);

const axeSource = await readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

interface Violation {
  readonly id: string;
  readonly impact: string | null;
  readonly targets: ReadonlyArray<string>;
}

/** The serious and critical axe-core violations of the page as it stands, by rule and target. */
const seriousViolations = async (page: Page) => {
  if (!(await page.evaluate<boolean>("typeof axe === 'object'"))) await page.evaluate(axeSource);
  const violations = await page.evaluate<ReadonlyArray<Violation>>(
    "axe.run(document).then((results) => results.violations.map((v) => " +
      "({ id: v.id, impact: v.impact, targets: v.nodes.map((node) => node.target.join(' ')) })))",
  );
  return violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical");
};

/**
 * Expects the page to have `heading` as its h1 and, unless `axe` is false (a
 * page of a kind already checked at this viewport), no serious
 * accessibility violation.
 */
const expectPage = async (page: Page, heading: string, axe = true) => {
  await page.getByRole("heading", { level: 1, name: heading }).waitFor({ timeout: WAIT });
  if (axe) expect(await seriousViolations(page), `axe-core on "${heading}"`).toEqual([]);
};

/** Submits the form of the button named `name` and waits for the page it leads to. */
const submit = async (page: Page, name: string) => {
  await Promise.all([page.waitForNavigation({ timeout: WAIT }), page.getByRole("button", { name }).click()]);
};

let browser: HeadlessBrowser | undefined;
let page: Page;
const links = new Map<string, string>();
let desktopDebt = "";
let phoneDebt = "";

beforeAll(async () => {
  browser = await launchChromium({ width: 1200, height: 900 });
  page = browser.page;
  await worker.ready();
  desktopDebt = await createDebt("amelie@example.com");
  phoneDebt = await createDebt("amelie.phone@example.com");
  // The day-0 e-mails are due at START: an advance of a minute makes the worker send them.
  const advanced = await api.post("/external-api/v1/sandbox/clock/advance", token, {
    to: new Date(START.getTime() + 60_000).toISOString(),
  });
  expect(advanced.status, await advanced.clone().text()).toBe(200);
  for (const debtId of [desktopDebt, phoneDebt]) {
    const messages = (await read(`/external-api/v1/sandbox/messages?debt_id=${debtId}`))["data"] as Json[];
    expect(messages.map((message) => message["channel"])).toEqual(["email"]);
    const link = /https?:\/\/\S+\/pay\/[A-Za-z0-9_-]+/.exec(messages[0]!["body"])?.[0];
    expect(link, messages[0]!["body"]).toBeDefined();
    links.set(debtId, link!);
  }
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

describe("the debtor page in chromium", { timeout: 60_000 }, () => {
  it("opens the e-mail's link, checks identity, pays part in the sandbox, proposes a plan and disputes", async () => {
    const link = links.get(desktopDebt)!;
    expect(link.startsWith(`${t.api.url}/pay/`)).toBe(true);
    await page.goto(link);
    // A French debtor reads French first; the switch changes the language.
    await expectPage(page, "Confirmez votre identité");
    await Promise.all([page.waitForNavigation({ timeout: WAIT }), page.getByRole("link", { name: "English" }).click()]);
    await expectPage(page, "Confirm who you are", false);

    await page.getByLabel("Last name (or company name)").fill("Lefevre Dupont");
    await page.getByLabel("Postal code").fill("75 011");
    await submit(page, "Continue");
    await expectPage(page, "Amount due");
    const body = page.locator("main");
    expect(await body.innerText()).toContain("Browser Sandbox");
    expect(await body.innerText()).toContain("Winter heating, invoice F-2026-118");

    await page.getByLabel("Amount to pay").fill("100");
    await submit(page, "Pay");
    await expectPage(page, "Sandbox payment");
    expect(await body.innerText()).toContain("€100.00");
    await submit(page, "Confirm test payment");
    await expectPage(page, "Amount due", false);
    await page.getByRole("status").filter({ hasText: "your payment has been received" }).waitFor({ timeout: WAIT });
    expect(await page.locator(".big").innerText()).toBe("€150.00");
    expect(await page.getByRole("region", { name: "Payments made" }).innerText()).toContain("€100.00");

    await page.getByLabel("Number of installments").fill("3");
    await submit(page, "Send my proposal");
    await page.getByRole("status").filter({ hasText: "Your proposal was sent" }).waitFor({ timeout: WAIT });
    // One proposal at a time: the plan form is gone while this one waits.
    expect(await page.getByRole("button", { name: "Send my proposal" }).count()).toBe(0);

    await page.getByLabel("Reason").selectOption("already_paid");
    await page.getByLabel("Details (optional)").fill("Paid the rest by bank transfer on 2 November.");
    await page.getByLabel("Attachment (optional)").setInputFiles({ name: "transfer-receipt.pdf", mimeType: "application/pdf", buffer: RECEIPT });
    await submit(page, "Send my dispute");
    await page.getByRole("status").filter({ hasText: "Your dispute was sent" }).waitFor({ timeout: WAIT });
    expect(await page.getByRole("status").filter({ hasText: "Awaiting your creditor's review" }).innerText()).toContain(
      "payment plan proposal, dispute",
    );
    expect(await seriousViolations(page)).toEqual([]);

    // What the browser did, read through the api.
    const payments = (await read(`/external-api/v1/debts/${desktopDebt}/payments`))["data"] as Json[];
    expect(payments).toMatchObject([{ provider: "sandbox", amount: 100, status: "succeeded" }]);
    expect((await read(`/external-api/v1/debts/${desktopDebt}`))["data"]["remaining_amount"]).toBe(150);
    const todos = ((await read("/external-api/v1/todos?limit=100"))["data"] as Json[]).filter(
      (todo) => todo["debt_id"] === desktopDebt,
    );
    expect(todos.map((todo) => [todo["type"], todo["review_status"]]).sort()).toEqual([
      ["payment_plan", "suggested"],
      ["portal_dispute", "suggested"],
    ]);
    const dispute = todos.find((todo) => todo["type"] === "portal_dispute");
    expect(dispute).toMatchObject({
      message: "Paid the rest by bank transfer on 2 November.",
      content: { reason: "already_paid" },
      attachment: { name: "transfer-receipt.pdf", content_type: "application/pdf", size: RECEIPT.byteLength },
    });
    const download = await fetch(dispute!["attachment"]["url"]);
    expect(download.headers.get("content-type")).toBe("application/pdf");
    expect(Buffer.from(await download.arrayBuffer()).equals(RECEIPT)).toBe(true);
  });

  it("reads and pays on a 390x844 phone without sideways scrolling", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const fitsWidth = () => page.evaluate<boolean>("document.documentElement.scrollWidth <= window.innerWidth");
    await page.goto(`${links.get(phoneDebt)!}?lang=en`);
    await expectPage(page, "Confirm who you are");
    expect(await fitsWidth()).toBe(true);
    await page.getByLabel("Last name (or company name)").fill("lefèvre-dupont");
    await page.getByLabel("Postal code").fill("75011");
    await submit(page, "Continue");
    await expectPage(page, "Amount due");
    expect(await fitsWidth()).toBe(true);
    await page.getByLabel("Amount to pay").fill("50.25");
    await submit(page, "Pay");
    await expectPage(page, "Sandbox payment");
    expect(await fitsWidth()).toBe(true);
    await submit(page, "Confirm test payment");
    await expectPage(page, "Amount due", false);
    expect(await page.locator(".big").innerText()).toBe("€199.75");
    expect(await fitsWidth()).toBe(true);

    // A file that is no PDF, JPEG or PNG is refused by name, the dispute kept; a photo then goes through.
    await page.getByLabel("Reason").selectOption("goods_or_service");
    await page.getByLabel("Details (optional)").fill("The boiler was never repaired.");
    await page.getByLabel("Attachment (optional)").setInputFiles({ name: "boiler.png", mimeType: "image/png", buffer: Buffer.from("MZ not an image") });
    await submit(page, "Send my dispute");
    await expectPage(page, "Amount due");
    expect(await page.getByRole("alert").innerText()).toContain("is not a PDF, JPEG or PNG");
    expect(await page.getByLabel("Details (optional)").inputValue()).toBe("The boiler was never repaired.");
    expect(await page.getByLabel("Attachment (optional)").getAttribute("aria-invalid")).toBe("true");
    expect(await fitsWidth()).toBe(true);
    await page.getByLabel("Attachment (optional)").setInputFiles({ name: "boiler.png", mimeType: "image/png", buffer: PHOTO });
    await submit(page, "Send my dispute");
    await page.getByRole("status").filter({ hasText: "Your dispute was sent" }).waitFor({ timeout: WAIT });
    const todos = ((await read("/external-api/v1/todos?limit=100"))["data"] as Json[]).filter((todo) => todo["debt_id"] === phoneDebt);
    expect(todos.map((todo) => todo["attachment"])).toMatchObject([{ name: "boiler.png", content_type: "image/png", size: PHOTO.byteLength }]);
    // The check sees what it must: a button without a name is a critical violation.
    await page.evaluate("document.querySelector('main').append(document.createElement('button'))");
    expect((await seriousViolations(page)).map((violation) => violation.id)).toContain("button-name");
  });
});
