/**
 * Runs the real Koa app on a real socket against this test file's own
 * database, with a manual clock. `tenant()` provisions a company the way the
 * CLI does and `token()` gets a bearer token through the real token endpoint.
 */
import { Writable } from "node:stream";
import type { DebtorLinkSigner } from "@dc/crypto";
import { useTestDatabase } from "@dc/testing";
import { afterAll } from "vitest";
import { createTenant, type CreatedTenant } from "../../src/admin/tenants.ts";
import { createLogger, manualClock } from "@dc/runtime";
import { type ApiConfig, loadConfig } from "../../src/config.ts";
import { startApi } from "../../src/server.ts";

export const TEST_START = new Date("2026-11-21T10:00:00.000Z");

/** A log destination that keeps each line in `lines`. */
const lineSink = (lines: string[]) =>
  new Writable({
    write(chunk, _encoding, callback) {
      lines.push(String(chunk));
      callback();
    },
  });

export interface AnotherApiOptions {
  /** Environment settings beside the test defaults (`LOG_LEVEL` is `silent` unless given). */
  readonly environment?: Readonly<Record<string, string>>;
  /** Configuration that no environment setting reaches (the production policy in a test, say). */
  readonly config?: Partial<ApiConfig>;
  /** Another database than this file's (one that cannot be reached, say). */
  readonly databaseUrl?: string;
}

export const startTestApi = async () => {
  const { db, url: databaseUrl } = await useTestDatabase();
  const clock = manualClock(TEST_START);
  const logLines: string[] = [];
  const config = loadConfig({ NODE_ENV: "test", PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info" });
  const api = await startApi({ config, databaseUrl, clock, logger: createLogger("api", "info", lineSink(logLines)) });
  afterAll(() => api.stop());

  /**
   * Another api process on this file's database and clock, with its own
   * settings; `logLines` collects what it logs. The caller stops it.
   */
  const startAnotherApi = async (options: AnotherApiOptions = {}) => {
    const lines: string[] = [];
    const environment = { NODE_ENV: "test", PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "silent", ...options.environment };
    const anotherConfig = { ...loadConfig(environment), ...options.config };
    const another = await startApi({
      config: anotherConfig,
      databaseUrl: options.databaseUrl ?? databaseUrl,
      clock,
      logger: createLogger("api", anotherConfig.logLevel, lineSink(lines)),
    });
    return { ...another, logLines: lines };
  };

  const request = (path: string, init: RequestInit = {}) => fetch(`${api.url}${path}`, init);

  /** Posts `form` to the token endpoint (or its `/token` alias). */
  const tokenResponse = (
    form: Record<string, string>,
    headers: Record<string, string> = {},
    path: "/oauth/token" | "/token" = "/oauth/token",
  ) =>
    request(path, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams(form).toString(),
    });

  const token = async (tenant: CreatedTenant, scope?: string): Promise<string> => {
    const response = await tokenResponse({
      grant_type: "client_credentials",
      client_id: tenant.client_id,
      client_secret: tenant.client_secret,
      ...(scope === undefined ? {} : { scope }),
    });
    if (response.status !== 200) throw new Error(`token request failed: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { access_token: string }).access_token;
  };

  const tenant = (name = "Acme Collections") => createTenant(db, api.services.ids, name);
  /** A sandbox tenant, as `cli tenant create --sandbox` makes it: its clock starts at the test clock's now. */
  const sandboxTenant = (name = "Sandbox Collections") =>
    createTenant(db, api.services.ids, name, { sandbox: true, now: clock.now() });

  const get = (path: string, accessToken?: string) =>
    request(path, { headers: accessToken === undefined ? {} : { authorization: `Bearer ${accessToken}` } });

  /** What this api signs the debtor page links of `request`'s answers with: no `PUBLIC_BASE_URL`, so its own origin. */
  const linkSigner: DebtorLinkSigner = { origin: api.url, secret: api.services.config.idEncryptionKey };

  return {
    api,
    db,
    databaseUrl,
    clock,
    linkSigner,
    logLines,
    request,
    tokenResponse,
    token,
    tenant,
    sandboxTenant,
    get,
    startAnotherApi,
  };
};
