/**
 * Writes docs/screenshots/debtor-page-desktop.png and
 * debtor-page-phone.png: the debtor page (docs/decisions/0670-0673) of a
 * sample debt after a partial payment, rendered by the page's own view
 * functions and photographed in headless chromium: the whole page at
 * 1280 px, and the first screen of a 390x844 phone (at twice its pixel
 * density). Run from the repository root:
 *
 *   node_modules/.bin/node apps/api/scripts/debtor-page-screenshots.ts
 *
 * `CHROMIUM_PATH` overrides /usr/bin/chromium.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { textsOf } from "../src/debtor-page/texts.ts";
import { debtPage } from "../src/debtor-page/views.ts";

const OUT = join(import.meta.dirname, "..", "..", "..", "docs", "screenshots");
const texts = textsOf("en");
const euros = (amount: number) => new Intl.NumberFormat("en-GB", { style: "currency", currency: "EUR" }).format(amount);

const html = debtPage(
  { language: "en", texts, path: "/pay/sample", companyName: "Northwind Energy" },
  {
    csrf: "sample",
    creditor: "Northwind Energy",
    object: "Winter heating, invoice F-2026-118",
    reference: "F-2026-118",
    balance: euros(150),
    original: euros(250),
    dueDate: "1 October 2026",
    paid: false,
    installments: [],
    payments: [{ date: "23 November 2026", amount: euros(100) }],
    pay: { min: "1.00", max: "150.00", defaultAmount: "150.00", step: "0.01" },
    plan: { max: 12, min: euros(20), days: 365, firstDate: "2026-11-30" },
    openRequests: [],
    refused: [],
    quiet: null,
    notice: texts.paymentThanks,
  },
);

const browser = await chromium.launch({
  executablePath: process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
});
try {
  await mkdir(OUT, { recursive: true });
  for (const [name, viewport, scale, fullPage] of [
    ["desktop", { width: 1280, height: 900 }, 1, true],
    ["phone", { width: 390, height: 844 }, 2, false],
  ] as const) {
    const page = await browser.newPage({ viewport, deviceScaleFactor: scale, locale: "en-GB" });
    await page.setContent(html, { waitUntil: "load" });
    const path = join(OUT, `debtor-page-${name}.png`);
    await page.screenshot({ path, fullPage });
    await page.close();
    process.stdout.write(`wrote ${path}\n`);
  }
} finally {
  await browser.close();
}
