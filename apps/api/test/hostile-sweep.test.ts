/**
 * Inputs that say one thing twice (docs/decisions/0210). Each must be a 4xx
 * in the contract's envelope naming where, and write nothing, rather than be
 * read as one of its values while another reader of the same request (a
 * proxy, another JSON parser) reads the other.
 */
import { describe, expect, it } from "vitest";
import { startTestApi } from "./support/harness.ts";
import { jsonApi, rowCounts } from "./support/json-api.ts";
import { snapshotTestKit } from "./support/snapshots.ts";

const t = await startTestApi();
const api = jsonApi(t.request);
const kit = snapshotTestKit(t);
const { companyId, campaign, token } = await kit.setup();
const V = "/external-api/v1";

const validationFailed = (field: string, message: string) => ({
  error: true,
  message: "Validation failed",
  code: 400,
  details: { [field]: message },
  errors: [{ property: field, message }],
});

describe("a JSON body with a key twice in one object", () => {
  // RFC 8259 4: names within an object SHOULD be unique; when they are not, parsers disagree on
  // the value (JSON.parse keeps the last, many keep the first or refuse), so the body has no one meaning.
  const debt = `"lastname":"Twice","currency":"EUR"`;
  const cases: ReadonlyArray<{ label: string; method: string; path: string; body: string; field: string }> = [
    {
      label: "a debt's amount",
      method: "POST",
      path: `${V}/debts`,
      body: `{${debt},"amount":10,"amount":10000}`,
      field: "amount",
    },
    {
      label: "a key written once plainly and once with an escape",
      method: "POST",
      path: `${V}/debts`,
      body: `{${debt},"amount":10,"am\\u006funt":10000}`,
      field: "amount",
    },
    {
      label: "a key of metadata",
      method: "POST",
      path: `${V}/debts`,
      body: `{${debt},"amount":10,"metadata":{"a":{"b":1,"b":2}}}`,
      field: "metadata.a.b",
    },
    {
      label: "a key of a batch entry",
      method: "POST",
      path: `${V}/debts/batch`,
      body: `{"debts":[{${debt},"amount":1},{${debt},"amount":1,"internal_id":"x","internal_id":"y"}]}`,
      field: "debts.1.internal_id",
    },
    {
      label: "a top-level key",
      method: "POST",
      path: `${V}/creditors`,
      body: `{"name":"A","name":"B"}`,
      field: "name",
    },
  ];
  for (const { label, method, path, body, field } of cases) {
    it(`${label}: 400 naming it, nothing written`, async () => {
      const before = await rowCounts(t.db);
      const response = await api.send(method, path, token, body);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual(
        validationFailed(field, `the key "${field.split(".").at(-1)}" appears more than once`),
      );
      expect(await rowCounts(t.db)).toEqual(before);
    });
  }

  it("in a snapshot row: 400 naming the row's key, no snapshot, chunk or job stored", async () => {
    const row = `{"internal_id":"acct-1","remaining_amount":100,"remaining_amount":0,"currency":"EUR","lastname":"A"}`;
    const response = await kit.send("PUT", kit.path(campaign.api_reference, "twice"), token, `{"rows":[${row}]}`);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual(
      validationFailed("rows.0.remaining_amount", 'the key "remaining_amount" appears more than once'),
    );
    expect(await kit.stored(companyId, campaign.id)).toEqual({ snapshots: 0, chunks: 0, jobs: 0 });
  });

  it("keys repeated only across objects, or as values, are fine", async () => {
    const body = `{${debt},"amount":10,"internal_id":"amount","metadata":{"a":{"x":1},"b":{"x":1},"c":["amount","amount"]}}`;
    const response = await api.send("POST", `${V}/debts`, token, body);
    expect(response.status).toBe(201);
  });
});

describe("a key written with escapes, after another company's body poisoned V8's JSON key cache", () => {
  // V8's JSON.parse (Node 24 and 26; nodejs/node#63785, open) can take an object's escaped last key
  // for a key it cached from an earlier text: once any body held {"ref": ..., "\\": ...}, a later
  // {"ref": ..., "\u00e9": ...} (how Python's json.dumps writes "é") was read with the key "\\".
  it("is read as the key it stands for, and stored so", async () => {
    const poisoner = await kit.setup();
    const poison = await api.send(
      "POST",
      `${V}/debts`,
      poisoner.token,
      String.raw`{"lastname":"P","amount":1,"currency":"EUR","metadata":{"ref":"x","\\":"y"}}`,
    );
    expect(poison.status).toBe(201);
    const response = await api.send(
      "POST",
      `${V}/debts`,
      token,
      String.raw`{"lastname":"V","amount":1,"currency":"EUR","metadata":{"ref":"x","\u00e9":"2"}}`,
    );
    expect(response.status).toBe(201);
    const created = (await response.json()) as { data: { id: string; metadata: unknown } };
    expect(created.data.metadata).toEqual({ ref: "x", "\u00e9": "2" });
    const id = t.api.services.ids.decode("debt", created.data.id);
    const stored = await t.db
      .selectFrom("debts")
      .select("metadata")
      .where("id", "=", Number(id))
      .executeTakeFirstOrThrow();
    expect(stored.metadata).toEqual({ ref: "x", "\u00e9": "2" });
  });
});

describe("a Content-Type whose charset is said twice, or spaced around its equals sign", () => {
  // "Ã©" in Latin-1 is the bytes C3 A9, which UTF-8 reads as "é": read as UTF-8, the debtor's name
  // would be stored altered. A charset other than UTF-8 is a 415 (docs/decisions/0019); these
  // headers name one too, but were read as naming none, or only the first.
  const latin1 = Buffer.concat([
    Buffer.from('{"lastname":"'),
    Buffer.from("Ã©", "latin1"),
    Buffer.from('","amount":1,"currency":"EUR"}'),
  ]);
  for (const contentType of [
    "application/json; charset=utf-8; charset=latin1",
    "application/json; charset=latin1; charset=utf-8",
    "application/json; charset = latin1",
    "application/json; CHARSET=latin1",
  ]) {
    it(`${contentType}: 415, nothing written`, async () => {
      const before = await rowCounts(t.db);
      const response = await t.request(`${V}/debts`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": contentType },
        body: latin1,
      });
      expect(response.status).toBe(415);
      expect(await response.json()).toEqual({
        error: true,
        message: "Unsupported media type: expected application/json",
        code: 415,
      });
      expect(await rowCounts(t.db)).toEqual(before);
    });
  }

  it("one charset of UTF-8, in any case or quoted, is read", async () => {
    for (const contentType of [
      "application/json; charset=UTF-8",
      'application/json;charset="utf-8"',
      "application/json; charset=utf8",
    ]) {
      const response = await api.post(
        `${V}/debts`,
        token,
        { lastname: "é", amount: 1, currency: "EUR" },
        { contentType },
      );
      expect(response.status, contentType).toBe(201);
    }
  });
});

describe("a number in metadata with more significant digits than a double holds", () => {
  // metadata is stored from the parsed body: JSON.parse reads 12345678901234567890 as 12345678901234567000,
  // so an integrator's 20-digit reference would be stored, and come back, as another number. Amounts and
  // metadata are refused by the same rule (Money.inexactNumbers, docs/decisions/0109).
  const message =
    "has more significant digits than a number holds exactly: 12345678901234567890 would read as 12345678901234567000";

  it("is a 400 naming it on creation and update, and nothing is written", async () => {
    const before = await rowCounts(t.db);
    const created = await api.send(
      "POST",
      `${V}/debts`,
      token,
      `{"lastname":"Exact","amount":1,"currency":"EUR","metadata":{"refs":[1,{"ext_id":12345678901234567890}]}}`,
    );
    expect(created.status).toBe(400);
    expect(await created.json()).toEqual(validationFailed("metadata.refs.1.ext_id", message));
    expect(await rowCounts(t.db)).toEqual(before);

    const debt = (await (
      await api.post(`${V}/debts`, token, { lastname: "Exact", amount: 1, currency: "EUR" })
    ).json()) as {
      data: { id: string };
    };
    const updated = await api.send(
      "PATCH",
      `${V}/debts/${debt.data.id}`,
      token,
      `{"metadata":{"ext_id":12345678901234567890}}`,
    );
    expect(updated.status).toBe(400);
    expect(await updated.json()).toEqual(validationFailed("metadata.ext_id", message));
    const stored = await t.db
      .selectFrom("debts")
      .select("metadata")
      .where("id", "=", Number(t.api.services.ids.decode("debt", debt.data.id)))
      .executeTakeFirstOrThrow();
    expect(stored.metadata).toEqual({});
  });

  it("fails its batch entry, naming it", async () => {
    const response = await api.send(
      "POST",
      `${V}/debts/batch`,
      token,
      `{"debts":[{"lastname":"A","amount":1,"currency":"EUR","metadata":{"ext_id":12345678901234567890}}]}`,
    );
    expect(response.status).toBe(201);
    const body = (await response.json()) as { data: { created: unknown[]; failed: Array<{ errors: unknown }> } };
    expect(body.data.created).toEqual([]);
    expect(body.data.failed[0]?.errors).toEqual([{ property: "metadata.ext_id", message }]);
  });

  it("numbers a double holds exactly, however written, are kept", async () => {
    const response = await api.send(
      "POST",
      `${V}/debts`,
      token,
      `{"lastname":"Exact","amount":1,"currency":"EUR","metadata":{"a":1.0,"b":0.1e1,"c":9007199254740991,"d":1e21,"e":-0.5}}`,
    );
    expect(response.status).toBe(201);
    expect(((await response.json()) as { data: { metadata: unknown } }).data.metadata).toEqual({
      a: 1,
      b: 1,
      c: 9007199254740991,
      d: 1e21,
      e: -0.5,
    });
  });
});
