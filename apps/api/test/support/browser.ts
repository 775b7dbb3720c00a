/**
 * Headless Debian Chromium driven by playwright-core, launched the way this
 * machine allows (no sandbox as root, no background networking on a closed
 * network), with a fresh profile removed on close. A missing browser fails
 * the test: it must not be skipped in CI.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { expect } from "vitest";

export const CHROMIUM = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium";

export interface HeadlessBrowser {
  readonly context: BrowserContext;
  readonly page: Page;
  readonly close: () => Promise<void>;
}

export const launchChromium = async (viewport: { width: number; height: number }): Promise<HeadlessBrowser> => {
  expect(existsSync(CHROMIUM), `chromium is required at ${CHROMIUM} (apt-get install -y chromium)`).toBe(true);
  const profile = await mkdtemp(join(tmpdir(), "dc-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
};
