/**
 * `Idempotency-Key` under attack (docs/decisions/0024):
 * races between requests with one key, requests that fail inside their
 * keyed write, replays to a token without the scope or of another company,
 * the rate limit of a replay and of a 422, hostile header values, and the
 * records going with their company.
 */
import { endpoints } from "@dc/contract";
import { afterAll, describe, expect, it } from "vitest";
import { collectionRows } from "./support/collection-rows.ts";
import {
  debtsNamed as countDebtsNamed,
  holdClaim as holdSharedClaim,
  requestDigestOf,
  waitForAClaimer,
} from "./support/idempotency.ts";
import { startTestApi, TEST_START } from "./support/harness.ts";

const t = await startTestApi();
const { ids } = t.api.services;
const rows = collectionRows(t.db, ids);
const acme = await t.tenant("Acme Hostile");
const acmeCompany = rows.companyOf(acme);
const token = await t.token(acme);

const DEBTS = endpoints.createDebt.path;
const CREDITORS = endpoints.createCreditor.path;
const other = await t.startAnotherApi();
const bounded = await t.startAnotherApi({ environment: { DATABASE_STATEMENT_TIMEOUT_MS: "1000" } });
afterAll(async () => {
  await other.stop();
  await bounded.stop();
});

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

const debtsNamed = (lastname: string) => countDebtsNamed(t.db, lastname);

const recordsOf = async (companyId: number) =>
  Number(
    (
      await t.db
        .selectFrom("idempotency_keys")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("company_id", "=", companyId)
        .executeTakeFirstOrThrow()
    ).n,
  );

const keyRecorded = async (key: string) =>
  (await t.db
    .selectFrom("idempotency_keys")
    .select("idempotency_key")
    .where("company_id", "=", acmeCompany)
    .where("idempotency_key", "=", key)
    .executeTakeFirst()) !== undefined;


const holdClaim = (key: string, requestSha256: Buffer, operation?: string) =>
  holdSharedClaim(t.db, { companyId: acmeCompany, key, requestSha256, at: TEST_START, ...(operation === undefined ? {} : { operation }) });

/**
 * Sends `body` with `key` while a concurrent request holds the key's claim, then lets that
 * request commit its answer: resolves with this request's answer.
 */
const answerBehindAHeldClaim = async (path: string, body: string, operation: string) => {
  const key = freshKey();
  const held = await holdClaim(key, requestDigestOf(operation, body), operation);
  const answer = post(path, body, { key });
  const claimer = waitForAClaimer(t.db);
  await Promise.race([answer, claimer.waiting]);
  claimer.stop();
  held.release(true);
  await held.done;
  return answer;
};


describe("a keyed debt whose internal_id a concurrent request with the same key created meanwhile", () => {
  it("gets that request's answer, not 409: the key is consulted before the duplicate is reported", async () => {
    // The concurrent twin's debt is committed, its record not yet: the moment between this
    // request's first look at the key (nothing there) and its duplicate check (the debt there).
    const internalId = `twin-${freshKey()}`;
    expect((await post(DEBTS, { lastname: "Twin", amount: 10, currency: "EUR", internal_id: internalId })).status).toBe(
      201,
    );
    const body = JSON.stringify({ lastname: "Twin", amount: 10, currency: "EUR", internal_id: internalId });
    const response = await answerBehindAHeldClaim(DEBTS, body, "createDebt");
    expect(response.status).toBe(201);
    expect(response.headers.get("idempotent-replayed")).toBe("true");
    expect(await response.text()).toBe('{"held":true}');
  });
});

describe("a keyed request refused for what its same-key twin's commit changed", () => {
  // The twin's write is committed, its record about to be; meanwhile a third party removed what
  // this request's checks look up. The key is consulted under its claim before any refusal.
  it("a credit note whose invoice was deleted meanwhile gets the twin's answer, not 400", async () => {
    const body = JSON.stringify({ lastname: "Noted", amount: 5, currency: "EUR", credited_invoice_reference: "INV-GONE" });
    const response = await answerBehindAHeldClaim(DEBTS, body, "createDebt");
    expect(response.status).toBe(201);
    expect(response.headers.get("idempotent-replayed")).toBe("true");
    expect(await response.text()).toBe('{"held":true}');
  });

  it("a followup whose debt was deleted meanwhile gets the twin's answer, not 404", async () => {
    const gone = ids.encode("debt", 987_654_321);
    const body = JSON.stringify({ debt_id: gone, type: "email" });
    const response = await answerBehindAHeldClaim(endpoints.createFollowup.path, body, "createFollowup");
    expect(response.status).toBe(201);
    expect(response.headers.get("idempotent-replayed")).toBe("true");
    expect(await response.text()).toBe('{"held":true}');
  });

  it("without a twin, the refusal stands and the key stays free", async () => {
    const key = freshKey();
    const body = JSON.stringify({ lastname: "Noted", amount: 5, currency: "EUR", credited_invoice_reference: "INV-GONE" });
    const refused = await post(DEBTS, body, { key });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ details: { credited_invoice_reference: expect.any(String) } });
    expect(await keyRecorded(key)).toBe(false);
  });
});

describe("many requests with one key over two api processes", () => {
  it("create one debt and give every request the same answer", async () => {
    const key = freshKey();
    const body = JSON.stringify({ lastname: "Two Processes", amount: 33, currency: "EUR" });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => post(DEBTS, body, { key, ...(i % 2 === 0 ? { url: other.url } : {}) })),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(12).fill(201));
    expect(new Set(await Promise.all(answers.map((answer) => answer.text()))).size).toBe(1);
    expect(answers.filter((answer) => answer.headers.get("idempotent-replayed") === null)).toHaveLength(1);
    expect(await debtsNamed("Two Processes")).toBe(1);
  });

  it("with different bodies: exactly one writes, the others get its answer (same body) or 422 (another body)", async () => {
    const key = freshKey();
    const bodies = Array.from({ length: 12 }, (_, i) =>
      JSON.stringify({ lastname: `Contender ${i % 3}`, amount: 7, currency: "EUR" }),
    );
    const answers = await Promise.all(
      bodies.map((body, i) => post(DEBTS, body, { key, ...(i % 2 === 0 ? { url: other.url } : {}) })),
    );
    const written = answers.filter(
      (answer) => answer.status === 201 && answer.headers.get("idempotent-replayed") === null,
    );
    expect(written).toHaveLength(1);
    const winner = bodies[answers.indexOf(written[0]!)]!;
    const created = Number(
      (
        await t.db
          .selectFrom("debts")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("lastname", "like", "Contender %")
          .executeTakeFirstOrThrow()
      ).n,
    );
    expect(created).toBe(1);
    answers.forEach((answer, i) => {
      if (bodies[i] === winner) expect(answer.status).toBe(201);
      else expect(answer.status).toBe(422);
    });
  });
});

describe("a replay", () => {
  it("needs the operation's scope (403) and is never given to another company", async () => {
    const key = freshKey();
    const body = { name: "Scoped Creditor" };
    expect((await post(CREDITORS, body, { key })).status).toBe(201);
    const readOnly = await t.token(acme, "creditors:read");
    const refused = await post(CREDITORS, body, { key, token: readOnly });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("idempotent-replayed")).toBeNull();
    const globex = await t.tenant("Globex Hostile");
    const elsewhere = await post(CREDITORS, body, { key, token: await t.token(globex) });
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.headers.get("idempotent-replayed")).toBeNull();
  });

  it("gives the original answer after the debt was updated or deleted, and creates nothing", async () => {
    const key = freshKey();
    const body = JSON.stringify({ lastname: "Changed Later", amount: 12, currency: "EUR" });
    const first = await post(DEBTS, body, { key });
    const firstText = await first.text();
    const id = (JSON.parse(firstText) as { data: { id: string } }).data.id;
    const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    expect(
      (await t.request(`${DEBTS}/${id}`, { method: "PATCH", headers: auth, body: '{"city":"Lyon"}' })).status,
    ).toBe(200);
    const afterUpdate = await post(DEBTS, body, { key });
    expect(afterUpdate.headers.get("idempotent-replayed")).toBe("true");
    expect(await afterUpdate.text()).toBe(firstText);
    expect((await t.request(`${DEBTS}/${id}`, { method: "DELETE", headers: auth })).status).toBeLessThan(300);
    const afterDelete = await post(DEBTS, body, { key });
    expect(afterDelete.status).toBe(201);
    expect(await afterDelete.text()).toBe(firstText);
    expect(await debtsNamed("Changed Later")).toBe(0);
  });

  it("is the same request with another content-type parameter or a chunked body; another query string is another request", async () => {
    const key = freshKey();
    const body = JSON.stringify({ lastname: "Fingerprint", amount: 5, currency: "EUR" });
    expect((await post(DEBTS, body, { key })).status).toBe(201);
    const charset = await post(DEBTS, body, { key, contentType: "application/json; charset=utf-8" });
    expect(charset.headers.get("idempotent-replayed")).toBe("true");
    const chunked = await t.request(DEBTS, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "idempotency-key": key },
      body: new Blob([body]).stream(),
      duplex: "half",
    } as RequestInit);
    expect(chunked.headers.get("idempotent-replayed")).toBe("true");
    const queried = await post(`${DEBTS}?source=retry`, body, { key });
    expect(queried.status).toBe(422);
    expect(await debtsNamed("Fingerprint")).toBe(1);
  });
});

describe("the rate limit", () => {
  it("counts a 422 for a reused key, and gives back only a replay", async () => {
    const key = freshKey();
    const first = await post(CREDITORS, { name: "Budgeted" }, { key });
    const remaining = Number(first.headers.get("ratelimit-remaining"));
    const replay = await post(CREDITORS, { name: "Budgeted" }, { key });
    expect(Number(replay.headers.get("ratelimit-remaining"))).toBe(remaining);
    const reused = await post(CREDITORS, { name: "Another" }, { key });
    expect(reused.status).toBe(422);
    expect(Number(reused.headers.get("ratelimit-remaining"))).toBe(remaining - 1);
    const next = await post(CREDITORS, { name: "Budgeted" }, { key });
    expect(Number(next.headers.get("ratelimit-remaining"))).toBe(remaining - 1);
  });
});

describe("hostile keys", () => {
  it.each([
    ["whitespace only", "   "],
    ["non-ASCII", "clé-1"],
    ["a bare quote", 'a"b'],
    ["a bare backslash", "a\\b"],
    ["an unterminated quoted string", '"abc'],
    ["a bad escape", '"a\\x"'],
    ["a Structured Field parameter", '"abc";v=1'],
    ["a comma (two keys folded)", "a, b"],
  ])("refuses %s with a 400 naming the header, writing nothing", async (_label, key) => {
    const before = await recordsOf(acmeCompany);
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const response = await t.request(CREDITORS, {
      method: "POST",
      headers: { ...headers, "idempotency-key": key },
      body: JSON.stringify({ name: "Hostile Key" }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { details: Record<string, string> }).details).toHaveProperty([
      "Idempotency-Key",
    ]);
    expect(await recordsOf(acmeCompany)).toBe(before);
  });

  it("takes escapes in a quoted key as the characters they stand for, and 255 characters after unquoting", async () => {
    const escaped = await post(CREDITORS, { name: "Escaped Key" }, { key: '"q\\"uoted\\\\-key"' });
    expect(escaped.status).toBe(201);
    const stored = await t.db
      .selectFrom("idempotency_keys")
      .select("idempotency_key")
      .where("company_id", "=", acmeCompany)
      .where("idempotency_key", "like", "q%uoted%")
      .executeTakeFirstOrThrow();
    expect(stored.idempotency_key).toBe('q"uoted\\-key');
    const long = "k".repeat(254);
    expect((await post(CREDITORS, { name: "Long Key" }, { key: `"${long}\\\\"` })).status).toBe(201);
  });
});

describe("records as personal data", () => {
  it("go with their company", async () => {
    const doomed = await t.tenant("Doomed Ltd");
    const doomedCompany = rows.companyOf(doomed);
    expect(
      (await post(CREDITORS, { name: "Soon Gone" }, { key: freshKey(), token: await t.token(doomed) })).status,
    ).toBe(201);
    expect(await recordsOf(doomedCompany)).toBe(1);
    await t.db.deleteFrom("companies").where("id", "=", doomedCompany).execute();
    expect(await recordsOf(doomedCompany)).toBe(0);
  });
});

describe("a keyed request whose transaction fails", () => {
  it("past the statement timeout, waiting on the key's claim: 503, nothing recorded, and the retry runs", async () => {
    const key = freshKey();
    const body = JSON.stringify({ lastname: "Timed Out", amount: 8, currency: "EUR" });
    const held = await holdClaim(key, Buffer.alloc(32));
    const timedOut = await post(DEBTS, body, { key, url: bounded.url });
    expect(timedOut.status).toBe(503);
    held.release(false);
    await held.done;
    expect(await keyRecorded(key)).toBe(false);
    const retry = await post(DEBTS, body, { key, url: bounded.url });
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    expect(await debtsNamed("Timed Out")).toBe(1);
  });
});
