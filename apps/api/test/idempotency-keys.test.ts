/**
 * `Idempotency-Key` on the creating operations (docs/decisions/0024): a
 * retry of the same request gets the recorded answer and writes nothing; the
 * same key with another request is 422; keys are per company; a failed
 * request records nothing; a concurrent duplicate waits for the first's
 * commit; keys expire after 24 hours.
 */
import { request as httpRequest } from "node:http";
import { endpoints } from "@dc/contract";
import { afterEach, describe, expect, it } from "vitest";
import { collectionRows } from "./support/collection-rows.ts";
import { expectContract } from "./support/contract-validator.ts";
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
const acme = await t.tenant("Acme Collections");
const globex = await t.tenant("Globex");
const acmeCompany = rows.companyOf(acme);
const acmeDebt = await rows.debt(acme);
const token = await t.token(acme);
const globexToken = await t.token(globex);

const DEBTS = endpoints.createDebt.path;
const BATCH = endpoints.createDebtsBatch.path;
const FOLLOWUPS = endpoints.createFollowup.path;
const CREDITORS = endpoints.createCreditor.path;

afterEach(() => t.clock.set(TEST_START));

const post = (path: string, body: unknown, options: { key?: string | string[]; token?: string } = {}) => {
  const headers = new Headers({
    authorization: `Bearer ${options.token ?? token}`,
    "content-type": "application/json",
  });
  for (const key of typeof options.key === "string" ? [options.key] : (options.key ?? [])) {
    headers.append("idempotency-key", key);
  }
  return t.request(path, { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body) });
};

let serial = 0;
/** A fresh key per test, so tests do not see each other's records. */
const freshKey = () => `key-${Date.now()}-${++serial}`;
/** A debt body without `internal_id`: nothing but the key tells two of them apart. */
const debtBody = (lastname = "Durand") => ({ lastname, amount: 120.5, currency: "EUR" });

const count = async (table: "debts" | "creditors" | "followups" | "import_batches" | "idempotency_keys") =>
  Number(
    (
      await t.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow()
    ).n,
  );

const debtsNamed = (lastname: string) => countDebtsNamed(t.db, lastname);

const REUSED = {
  error: true,
  code: 422,
  message: "Idempotency-Key already used for a different request",
  error_code: "idempotency_key_reused",
};

describe("a retry with the same key and the same request", () => {
  it("gets the first answer again, byte for byte, marked as replayed, and creates nothing", async () => {
    const key = freshKey();
    const first = await post(DEBTS, debtBody("Replayed"), { key });
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const firstText = await first.clone().text();
    await expectContract(first, "post", DEBTS);

    const retry = await post(DEBTS, debtBody("Replayed"), { key });
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await retry.clone().text()).toBe(firstText);
    await expectContract(retry, "post", DEBTS);
    expect(await debtsNamed("Replayed")).toBe(1);
  });

  it("is counted, then given back, against the rate limit: a replay leaves the budget where the first left it", async () => {
    const key = freshKey();
    const first = await post(DEBTS, debtBody("Budget"), { key });
    const retry = await post(DEBTS, debtBody("Budget"), { key });
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.headers.get("ratelimit-remaining")).toBe(first.headers.get("ratelimit-remaining"));
  });

  it("takes a quoted key as the same key as its bare form", async () => {
    const key = freshKey();
    expect((await post(DEBTS, debtBody("Quoted"), { key: `"${key}"` })).status).toBe(201);
    const retry = await post(DEBTS, debtBody("Quoted"), { key });
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await debtsNamed("Quoted")).toBe(1);
  });

  it("replays a batch, a followup (its credits charged once) and a creditor", async () => {
    const batchKey = freshKey();
    const batch = { batch_name: "nightly", debts: [{ ...debtBody("Batched"), temp_id: "a" }, { amount: 5 }] };
    const batchFirst = await post(BATCH, batch, { key: batchKey });
    expect(batchFirst.status).toBe(201);
    const imports = await count("import_batches");
    const batchRetry = await post(BATCH, batch, { key: batchKey });
    expect(batchRetry.headers.get("idempotent-replayed")).toBe("true");
    expect(await batchRetry.text()).toBe(await batchFirst.text());
    expect(await count("import_batches")).toBe(imports);
    expect(await debtsNamed("Batched")).toBe(1);

    const creditsOf = async () =>
      (
        await t.db
          .selectFrom("companies")
          .select("current_credits")
          .where("id", "=", acmeCompany)
          .executeTakeFirstOrThrow()
      ).current_credits;
    const before = await creditsOf();
    const followupKey = freshKey();
    const call = { debt_id: ids.encode("debt", acmeDebt), type: "call", status: "deal_found", duration_ms: 61_000 };
    const followupFirst = await post(FOLLOWUPS, call, { key: followupKey });
    expect(followupFirst.status).toBe(201);
    const charged = before - (await creditsOf());
    expect(charged).toBeGreaterThan(0);
    const followups = await count("followups");
    const followupRetry = await post(FOLLOWUPS, call, { key: followupKey });
    expect(followupRetry.headers.get("idempotent-replayed")).toBe("true");
    await expectContract(followupRetry, "post", FOLLOWUPS);
    expect(await count("followups")).toBe(followups);
    expect(before - (await creditsOf())).toBe(charged);

    const creditorKey = freshKey();
    const creditors = await count("creditors");
    const creditorFirst = await post(CREDITORS, { name: "Keyed Creditor" }, { key: creditorKey });
    const creditorRetry = await post(CREDITORS, { name: "Keyed Creditor" }, { key: creditorKey });
    expect(creditorRetry.headers.get("idempotent-replayed")).toBe("true");
    expect(await creditorRetry.text()).toBe(await creditorFirst.text());
    expect(await count("creditors")).toBe(creditors + 1);
  });

  it("is answered once when ten arrive at once: one debt, ten identical answers", async () => {
    const key = freshKey();
    const answers = await Promise.all(Array.from({ length: 10 }, () => post(DEBTS, debtBody("Stampede"), { key })));
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(201));
    const texts = await Promise.all(answers.map((answer) => answer.text()));
    expect(new Set(texts).size).toBe(1);
    expect(answers.filter((answer) => answer.headers.get("idempotent-replayed") === null)).toHaveLength(1);
    expect(await debtsNamed("Stampede")).toBe(1);
  });
});

describe("the same key with another request", () => {
  it("is 422 idempotency_key_reused for another body, another operation or other body bytes, and writes nothing", async () => {
    const key = freshKey();
    expect((await post(DEBTS, debtBody("Original"), { key })).status).toBe(201);
    const debts = await count("debts");
    const creditors = await count("creditors");

    const otherBody = await post(DEBTS, debtBody("Changed"), { key });
    expect(otherBody.status).toBe(422);
    expect(await expectContract(otherBody, "post", DEBTS)).toEqual(REUSED);

    // The same JSON value with other whitespace is other bytes: the key names a request, not its meaning.
    const reformatted = await post(DEBTS, JSON.stringify(debtBody("Original"), null, 2), { key });
    expect(reformatted.status).toBe(422);

    const otherOperation = await post(CREDITORS, { name: "Original" }, { key });
    expect(otherOperation.status).toBe(422);
    expect(await expectContract(otherOperation, "post", CREDITORS)).toEqual(REUSED);

    expect(await count("debts")).toBe(debts);
    expect(await count("creditors")).toBe(creditors);
  });
});

describe("the same key with another request, on the followup and batch creations", () => {
  it("is the documented 422 idempotency_key_reused there too, and writes nothing", async () => {
    const followupKey = freshKey();
    const followup = { debt_id: ids.encode("debt", acmeDebt), type: "email" };
    expect((await post(FOLLOWUPS, followup, { key: followupKey })).status).toBe(201);
    const batchKey = freshKey();
    expect((await post(BATCH, { debts: [debtBody("Batch Original")] }, { key: batchKey })).status).toBe(201);
    const before = { followups: await count("followups"), debts: await count("debts"), batches: await count("import_batches") };

    const otherFollowup = await post(FOLLOWUPS, { ...followup, type: "sms" }, { key: followupKey });
    expect(otherFollowup.status).toBe(422);
    expect(await expectContract(otherFollowup, "post", FOLLOWUPS)).toEqual(REUSED);
    const otherBatch = await post(BATCH, { debts: [debtBody("Batch Changed")] }, { key: batchKey });
    expect(otherBatch.status).toBe(422);
    expect(await expectContract(otherBatch, "post", BATCH)).toEqual(REUSED);
    const crossed = await post(BATCH, { debts: [debtBody("Batch Original")] }, { key: followupKey });
    expect(crossed.status).toBe(422);
    expect(await expectContract(crossed, "post", BATCH)).toEqual(REUSED);

    expect({ followups: await count("followups"), debts: await count("debts"), batches: await count("import_batches") }).toEqual(
      before,
    );
    expect(await debtsNamed("Batch Changed")).toBe(0);
  });
});

describe("keys belong to a company", () => {
  it("lets another company use the same key for its own request, and never shows it the first company's answer", async () => {
    const key = freshKey();
    const acmeAnswer = await post(DEBTS, debtBody("Shared Key"), { key });
    const globexAnswer = await post(DEBTS, debtBody("Shared Key"), { key, token: globexToken });
    expect(globexAnswer.status).toBe(201);
    expect(globexAnswer.headers.get("idempotent-replayed")).toBeNull();
    const acmeId = ((await acmeAnswer.json()) as { data: { id: string } }).data.id;
    const globexId = ((await globexAnswer.json()) as { data: { id: string } }).data.id;
    expect(globexId).not.toBe(acmeId);
    expect(await debtsNamed("Shared Key")).toBe(2);
  });
});

describe("a request that failed", () => {
  it("records nothing: a 400 leaves the key free, and its corrected retry creates the debt", async () => {
    const key = freshKey();
    const keys = await count("idempotency_keys");
    const refused = await post(DEBTS, { lastname: "Corrected", currency: "EUR" }, { key });
    expect(refused.status).toBe(400);
    expect(await count("idempotency_keys")).toBe(keys);
    const corrected = await post(DEBTS, debtBody("Corrected"), { key });
    expect(corrected.status).toBe(201);
    expect(corrected.headers.get("idempotent-replayed")).toBeNull();
    expect(await debtsNamed("Corrected")).toBe(1);
  });

  it("records nothing for a 409 either: the retry runs again and meets the same conflict", async () => {
    const body = { ...debtBody("Conflicted"), internal_id: `conflict-${freshKey()}` };
    expect((await post(DEBTS, body)).status).toBe(201);
    const key = freshKey();
    const keys = await count("idempotency_keys");
    expect((await post(DEBTS, body, { key })).status).toBe(409);
    expect(await count("idempotency_keys")).toBe(keys);
    const again = await post(DEBTS, body, { key });
    expect(again.status).toBe(409);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
  });
});

describe("a malformed key", () => {
  it.each([
    ["two words", "a key with a space", "must be 1 to 255 visible ASCII characters, bare or as a quoted string"],
    [
      "k".repeat(256),
      "a key of 256 characters",
      "must be 1 to 255 visible ASCII characters, bare or as a quoted string",
    ],
    ['""', "an empty quoted key", "must be 1 to 255 visible ASCII characters, bare or as a quoted string"],
  ])("is 400 naming the header for %s (%s), and writes nothing", async (key, _label, requirement) => {
    const debts = await count("debts");
    const response = await post(DEBTS, debtBody("Malformed"), { key });
    expect(response.status).toBe(400);
    expect(await expectContract(response, "post", DEBTS)).toMatchObject({
      error: true,
      code: 400,
      details: { "Idempotency-Key": requirement },
    });
    expect(await count("debts")).toBe(debts);
  });

  it("is 400 when the header is sent twice", async () => {
    // fetch folds repeated headers into one line; node:http sends each.
    const url = new URL(`${t.api.url}${DEBTS}`);
    const body = JSON.stringify(debtBody("Twice"));
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: "POST",
          headers: {
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
            "idempotency-key": [freshKey(), freshKey()],
          },
        },
        (incoming) => {
          let text = "";
          incoming.on("data", (chunk: Buffer) => (text += chunk.toString()));
          incoming.on("end", () => resolve({ status: incoming.statusCode ?? 0, body: text }));
        },
      );
      request.on("error", reject);
      request.end(body);
    });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ details: { "Idempotency-Key": "must be sent once" } });
    expect(await debtsNamed("Twice")).toBe(0);
  });
});

describe("expiry", () => {
  it("keeps the answer for 24 hours; at 24 hours the key names a new request", async () => {
    const key = freshKey();
    expect((await post(DEBTS, debtBody("Expiring"), { key })).status).toBe(201);
    t.clock.advance(24 * 60 * 60 * 1000 - 1);
    // Access tokens last an hour: each request a day later needs a token of its own time.
    const nextDay = await t.token(acme);
    const replayed = await post(DEBTS, debtBody("Expiring"), { key, token: nextDay });
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    t.clock.advance(1);
    const later = await post(DEBTS, debtBody("Expiring"), { key, token: nextDay });
    expect(later.status).toBe(201);
    expect(later.headers.get("idempotent-replayed")).toBeNull();
    expect(await debtsNamed("Expiring")).toBe(2);
    const record = await t.db
      .selectFrom("idempotency_keys")
      .select(["created_at", "expires_at"])
      .where("company_id", "=", acmeCompany)
      .where("idempotency_key", "=", key)
      .executeTakeFirstOrThrow();
    expect(record.expires_at.getTime() - record.created_at.getTime()).toBe(24 * 60 * 60 * 1000);
  });
});

describe("a concurrent request with the same key", () => {
  const holdClaim = (key: string, requestSha256: Buffer) =>
    holdSharedClaim(t.db, { companyId: acmeCompany, key, requestSha256, at: TEST_START });

  const someoneWaitsOnTheClaim = () => waitForAClaimer(t.db).waiting;

  it("waits for the first to commit, then answers with its record and writes nothing", async () => {
    const key = freshKey();
    const body = JSON.stringify(debtBody("Waiter"));
    const digest = requestDigestOf("createDebt", body);
    const held = await holdClaim(key, digest);
    const waiting = post(DEBTS, body, { key });
    await someoneWaitsOnTheClaim();
    held.release(true);
    await held.done;
    const answer = await waiting;
    expect(answer.status).toBe(201);
    expect(answer.headers.get("idempotent-replayed")).toBe("true");
    expect(await answer.text()).toBe('{"held":true}');
    expect(await debtsNamed("Waiter")).toBe(0);
  });

  it("waits for the first to roll back, then makes the write itself", async () => {
    const key = freshKey();
    const held = await holdClaim(key, Buffer.alloc(32));
    const waiting = post(DEBTS, debtBody("Successor"), { key });
    await someoneWaitsOnTheClaim();
    held.release(false);
    await held.done;
    const answer = await waiting;
    expect(answer.status).toBe(201);
    expect(answer.headers.get("idempotent-replayed")).toBeNull();
    expect(await debtsNamed("Successor")).toBe(1);
  });
});

describe("the OpenAPI document", () => {
  it("declares the header, the replay header and the 422 on exactly the creating operations that honour the key", async () => {
    const keyed = Object.values(endpoints)
      .filter((endpoint) => endpoint.idempotencyKey === true)
      .map((endpoint) => endpoint.operationId)
      .sort();
    expect(keyed).toEqual(["createCreditor", "createDebt", "createDebtsBatch", "createFollowup"]);
    const document = (await (await t.request("/external-api/v1/openapi.json")).json()) as {
      paths: Record<
        string,
        Record<
          string,
          {
            operationId: string;
            parameters: Array<{ name: string; in: string }>;
            responses: Record<string, { headers?: Record<string, unknown> }>;
          }
        >
      >;
    };
    for (const item of Object.values(document.paths)) {
      for (const operation of Object.values(item)) {
        const declares =
          operation.parameters?.some(
            (parameter) => parameter.in === "header" && parameter.name === "Idempotency-Key",
          ) ?? false;
        expect(declares, operation.operationId).toBe(keyed.includes(operation.operationId));
        if (!declares) continue;
        expect(operation.responses["422"], operation.operationId).toBeDefined();
        expect(operation.responses["201"]?.headers?.["Idempotent-Replayed"], operation.operationId).toBeDefined();
      }
    }
  });
});
