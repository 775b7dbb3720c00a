/**
 * Runs the real Koa app on a real socket against this test file's own
 * database, with a manual clock. `tenant()` provisions a company the way the
 * CLI does and `token()` gets a bearer token through the real token endpoint.
 */
import { Writable } from "node:stream";
import { useTestDatabase } from "@dc/db/testing";
import { afterAll } from "vitest";
import { createTenant, type CreatedTenant } from "../../src/admin/tenants.ts";
import { manualClock } from "../../src/clock.ts";
import { loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/logger.ts";
import { startApi } from "../../src/server.ts";

export const TEST_START = new Date("2026-11-21T10:00:00.000Z");

export const startTestApi = async () => {
  const { db, url: databaseUrl } = await useTestDatabase();
  const clock = manualClock(TEST_START);
  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      logLines.push(String(chunk));
      callback();
    },
  });
  const config = loadConfig({ NODE_ENV: "test", PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info" });
  const api = await startApi({ config, databaseUrl, clock, logger: createLogger("info", sink) });
  afterAll(() => api.stop());

  const request = (path: string, init: RequestInit = {}) => fetch(`${api.url}${path}`, init);

  const tokenResponse = (form: Record<string, string>, headers: Record<string, string> = {}) =>
    request("/oauth/token", {
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

  const get = (path: string, accessToken?: string) =>
    request(path, { headers: accessToken === undefined ? {} : { authorization: `Bearer ${accessToken}` } });

  return { api, db, databaseUrl, clock, logLines, request, tokenResponse, token, tenant, get };
};
