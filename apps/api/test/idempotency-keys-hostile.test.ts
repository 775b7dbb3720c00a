/**
 * `Idempotency-Key` under attack (docs/decisions/0024, addenda of session
 * 12): races between requests with one key, requests that fail inside their
 * keyed write, replays to a token without the scope or of another company,
 * the rate limit of a replay and of a 422, hostile header values, and the
 * records going with their company.
 */
import { createHash } from "node:crypto";
import { endpoints } from "@dc/contract";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { collectionRows } from "./support/collection-rows.ts";
import { startTestApi, TEST_START } from "./support/harness.ts";

const t = await startTestApi();
const { ids } = t.api.services;
const rows = collectionRows(t.db, ids);
const acme = await t.tenant("Acme Hostile");
const acmeCompany = rows.companyOf(acme);
const token = await t.token(acme);

const DEBTS = endpoints.createDebt.path;

const post = (
  path: string,
  body: unknown,
  options: { key?: string; token?: string; url?: string; contentType?: string } = {},
) => {
  const headers = new Headers({
    authorization: `Bearer ${options.token ?? token}`,
    "content-type": options.contentType ?? "application/json",
  });
  if (options.key !== undefined) headers.set("idempotency-key", options.key);
  const init = { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body) };
  return options.url === undefined ? t.request(path, init) : fetch(`${options.url}${path}`, init);
};

let serial = 0;
const freshKey = () => `hostile-${Date.now()}-${++serial}`;

/** The digest the api keeps of a createDebt request without path parameters or query. */
const createDebtDigest = (body: string) => createHash("sha256").update(`createDebt\n{}\n\n`).update(body).digest();

class RolledBackByTheTest extends Error {}

/** Holds `key` claimed, as a concurrent request in its write would, until `release` ends the transaction. */
const holdClaim = async (key: string, requestSha256: Buffer) => {
  let release: (commit: boolean) => void = () => {};
  const ended = new Promise<boolean>((resolve) => (release = resolve));
  let claimed: () => void = () => {};
  const claim = new Promise<void>((resolve) => (claimed = resolve));
  const done = t.db
    .transaction()
    .execute(async (trx) => {
      await sql`insert into idempotency_keys (company_id, idempotency_key, operation, request_sha256, created_at, expires_at)
        values (${acmeCompany}, ${key}, 'createDebt', ${requestSha256}, ${TEST_START.toISOString()}::timestamptz,
          ${new Date(TEST_START.getTime() + 86_400_000).toISOString()}::timestamptz)`.execute(trx);
      claimed();
      if (!(await ended)) throw new RolledBackByTheTest();
      await sql`update idempotency_keys set response_status = 201, response_body = '{"held":true}',
        response_headers = '{}' where company_id = ${acmeCompany} and idempotency_key = ${key}`.execute(trx);
    })
    .catch((error: unknown) => {
      if (!(error instanceof RolledBackByTheTest)) throw error;
    });
  await Promise.race([claim, done]);
  return { release, done };
};

/** Resolves once some backend waits for a lock while claiming a key; `stop` ends the polling. */
const waitForAClaimer = () => {
  let stopped = false;
  const waiting = (async () => {
    while (!stopped) {
      const { rows: found } = await sql<{ n: number }>`
        select count(*)::int4 as n from pg_stat_activity
        where wait_event_type = 'Lock' and query like '%insert into idempotency_keys%'`.execute(t.db);
      if ((found[0]?.n ?? 0) > 0) return "waiting" as const;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return "stopped" as const;
  })();
  return { waiting, stop: () => (stopped = true) };
};

describe("a keyed debt whose internal_id a concurrent request with the same key created meanwhile", () => {
  it("gets that request's answer, not 409: the key is consulted before the duplicate is reported", async () => {
    // The concurrent twin's debt is committed, its record not yet: the moment between this
    // request's first look at the key (nothing there) and its duplicate check (the debt there).
    const internalId = `twin-${freshKey()}`;
    expect((await post(DEBTS, { lastname: "Twin", amount: 10, currency: "EUR", internal_id: internalId })).status).toBe(
      201,
    );
    const key = freshKey();
    const body = JSON.stringify({ lastname: "Twin", amount: 10, currency: "EUR", internal_id: internalId });
    const held = await holdClaim(key, createDebtDigest(body));
    const answer = post(DEBTS, body, { key });
    const claimer = waitForAClaimer();
    await Promise.race([answer, claimer.waiting]);
    claimer.stop();
    held.release(true);
    await held.done;
    const response = await answer;
    expect(response.status).toBe(201);
    expect(response.headers.get("idempotent-replayed")).toBe("true");
    expect(await response.text()).toBe('{"held":true}');
  });
});
