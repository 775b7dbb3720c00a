/**
 * Webhook endpoint management through the real app: success shapes read
 * through the OpenAPI document, the secret shown once and stored only sealed,
 * scopes, tenancy (another company's ids are 404), bad input naming its
 * field, destination checks under the production policy, rotation, the
 * delivery history and replays.
 */
import { MAX_WEBHOOK_ENDPOINTS } from "@dc/contract";
import { makeWebhookSecretBox } from "@dc/crypto";
import { recordEvent } from "@dc/db";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { jsonApi, payloadTooLargeBody } from "./support/json-api.ts";

const t = await startTestApi();
const { ids, config } = t.api.services;
const api = jsonApi(t.request);
const acme = await t.tenant("Acme Collections");
const globex = await t.tenant("Globex");
const writer = await t.token(acme, "debts:read debts:write");
const reader = await t.token(acme, "debts:read");
const unrelated = await t.token(acme, "followups:read followups:write");
const globexWriter = await t.token(globex, "debts:read debts:write");
const acmeCompany = ids.decode("company", acme.company_id)!;
const box = makeWebhookSecretBox(config.idEncryptionKey);

const LIST = "/external-api/v1/webhooks/endpoints";
const ONE = "/external-api/v1/webhooks/endpoints/{id}";
const ROTATE = "/external-api/v1/webhooks/endpoints/{id}/rotate-secret";
const DELIVERIES = "/external-api/v1/webhooks/endpoints/{id}/deliveries";
const REPLAY_FAILED = "/external-api/v1/webhooks/endpoints/{id}/replay-failed";
const REPLAY_EVENT = "/external-api/v1/webhooks/events/{eventId}/replay";
const one = (id: string) => `${LIST}/${id}`;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/;
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

const create = async (body: Record<string, unknown>, token = writer) => {
  const response = await api.post(LIST, token, body);
  expect(response.status).toBe(201);
  return (await expectContract<{ data: { id: string; secret: string } }>(response, "post", LIST)).data;
};

const expectError = async (response: Response, method: string, path: string, status: number, body: Record<string, unknown>) => {
  expect(response.status).toBe(status);
  expect(await expectContract(response, method, path)).toMatchObject({ error: true, code: status, ...body });
};

const sealedSecrets = (id: string) =>
  t.db
    .selectFrom("webhook_endpoints")
    .select(["secret_ciphertext", "previous_secret_ciphertext", "previous_secret_expires_at"])
    .where("id", "=", ids.decode("webhook_endpoint", id)!)
    .executeTakeFirstOrThrow();

const endpointRows = () => t.db.selectFrom("webhook_endpoints").selectAll().orderBy("id").execute();

const keyOf = (secret: string) => Buffer.from(secret.slice("whsec_".length), "base64");

describe("POST /webhooks/endpoints", () => {
  it("creates an endpoint and shows its secret once; the database holds it only sealed", async () => {
    const response = await api.post(LIST, writer, {
      url: "http://127.0.0.1:9/hooks",
      description: "Accounting sync",
      event_types: ["debt.created", "payment.recorded"],
      ordered: true,
    });
    expect(response.status).toBe(201);
    const body = await expectContract<{ data: { id: string; secret: string } }>(response, "post", LIST);
    expect(body).toEqual({
      error: false,
      message: "Webhook endpoint created successfully",
      data: {
        id: expect.any(String),
        url: "http://127.0.0.1:9/hooks",
        description: "Accounting sync",
        event_types: ["debt.created", "payment.recorded"],
        enabled: true,
        ordered: true,
        disabled_reason: null,
        disabled_at: null,
        previous_secret_expires_at: null,
        created_at: "2026-11-21T10:00:00+00:00",
        updated_at: "2026-11-21T10:00:00+00:00",
        secret: expect.stringMatching(SECRET),
      },
    });
    const key = keyOf(body.data.secret);
    expect(key.byteLength).toBe(32);
    const stored = await sealedSecrets(body.data.id);
    expect(stored.secret_ciphertext.includes(key)).toBe(false);
    expect(stored.secret_ciphertext.toString("latin1")).not.toContain(body.data.secret.slice(6, 20));
    expect(box.open(acmeCompany, stored.secret_ciphertext)).toEqual(key);

    const read = await api.get(one(body.data.id), reader);
    const readBody = await expectContract<{ data: Record<string, unknown> }>(read, "get", ONE);
    expect(readBody.data).not.toHaveProperty("secret");
    expect(JSON.stringify(readBody)).not.toContain(body.data.secret);
    const listed = await api.get(LIST, reader);
    expect(JSON.stringify(await expectContract(listed, "get", LIST))).not.toContain(body.data.secret);
  });

  it("defaults to every event type, enabled and unordered", async () => {
    const created = await create({ url: "http://127.0.0.1:9/all" });
    expect(created).toMatchObject({ event_types: [], enabled: true, ordered: false, description: null });
  });

  it("answers 400 naming each bad field: URL, event type, unknown key", async () => {
    const response = await api.post(LIST, writer, { url: "not a url", event_types: ["debt.created", "debt.exploded"], colour: "red" });
    await expectError(response, "post", LIST, 400, { message: "Validation failed" });
    const { details } = (await (await api.post(LIST, writer, { url: "not a url", event_types: ["debt.exploded"] })).json()) as {
      details: Record<string, string>;
    };
    expect(details["url"]).toBe("must be an absolute http or https URL");
    expect(details["event_types.0"]).toMatch(/^must be one of: snapshot\.completed, snapshot\.failed, debt\.created/);
    const unknown = (await (await api.post(LIST, writer, { url: "https://hooks.example.com/x", colour: "red" })).json()) as {
      details: Record<string, string>;
    };
    expect(unknown.details).toEqual({ colour: 'unknown field "colour"' });
    const missing = (await (await api.post(LIST, writer, {})).json()) as { details: Record<string, string> };
    expect(Object.keys(missing.details)).toEqual(["url"]);
    const repeated = (await (await api.post(LIST, writer, { url: "http://127.0.0.1:9/x", event_types: ["debt.created", "debt.created"] })).json()) as {
      details: Record<string, string>;
    };
    expect(repeated.details).toEqual({ event_types: "must not repeat a type" });
  });

  it("names only the first problem of a body over 64 KiB, whose problems could number hundreds of thousands (decision 0211)", async () => {
    const before = await t.db.selectFrom("webhook_endpoints").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
    // 400,000 wrong items in 800 KB: naming each would take seconds of the api's one thread and answer many MB.
    const wrongItems = { url: "http://127.0.0.1:9/many", event_types: Array.from({ length: 400_000 }, () => 1) };
    const response = await api.post(LIST, writer, wrongItems);
    expect(response.status).toBe(400);
    const text = await response.clone().text();
    expect(text.length).toBeLessThan(1_000);
    const { details } = (await expectContract(response, "post", LIST)) as { details: Record<string, string> };
    expect(Object.keys(details)).toEqual(["event_types.0"]);
    // A small body still names each problem.
    const small = (await (await api.post(LIST, writer, { url: "not a url", event_types: [1, 2] })).json()) as {
      details: Record<string, string>;
    };
    expect(Object.keys(small.details).sort()).toEqual(["event_types.0", "event_types.1", "url"]);
    const after = await t.db.selectFrom("webhook_endpoints").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
    expect(after).toEqual(before);
  });

  it.each([" http://127.0.0.1:9/x", "http://127.0.0.1:9/x\n", "http://127.0.0.1:9/a\tb", "http://127.0.0.1:9/a b", "http://127.0.0.1:9/a\u007f"])(
    "refuses a URL with a space or a control character (%j), which the URL parser would drop or encode, creating nothing",
    async (url) => {
      const before = await endpointRows();
      const response = await api.post(LIST, writer, { url });
      await expectError(response, "post", LIST, 400, { details: { url: "must not contain spaces or control characters" } });
      expect(await endpointRows()).toEqual(before);
    },
  );

  it("answers 415 for a body that is not JSON and 413 for one over 1 MiB, creating nothing", async () => {
    const before = await endpointRows();
    const text = await api.post(LIST, writer, "url=http://127.0.0.1:9/x", {
      contentType: "application/x-www-form-urlencoded",
    });
    expect(text.status).toBe(415);
    expect(await expectContract(text, "post", LIST)).toEqual({
      error: true,
      message: "Unsupported media type: expected application/json",
      code: 415,
    });
    const huge = await api.post(LIST, writer, { url: "http://127.0.0.1:9/x", description: "x".repeat(1024 * 1024) });
    expect(huge.status).toBe(413);
    const body = await expectContract(huge, "post", LIST);
    expect(body).toEqual(payloadTooLargeBody(1_048_576));
    expect(await endpointRows()).toEqual(before);
  });

  it("needs debts:write: 403 with debts:read or an unrelated scope", async () => {
    await expectError(await api.post(LIST, reader, { url: "http://127.0.0.1:9/x" }), "post", LIST, 403, {
      message: 'Required scope "debts:write" not found in token',
    });
    await expectError(await api.get(LIST, unrelated), "get", LIST, 403, { message: 'Required scope "debts:read" not found in token' });
  });

  it(`allows at most ${MAX_WEBHOOK_ENDPOINTS} endpoints per company (409)`, async () => {
    const initech = await t.token(await t.tenant("Initech"), "debts:write");
    for (let index = 0; index < MAX_WEBHOOK_ENDPOINTS; index++) await create({ url: `http://127.0.0.1:9/${index}` }, initech);
    await expectError(await api.post(LIST, initech, { url: "http://127.0.0.1:9/one-too-many" }), "post", LIST, 409, {
      error_code: "webhook_endpoint_limit_reached",
      message: `A company may have at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints`,
    });
  });

  it("answers 401 without a token", async () => {
    expect((await t.request(LIST)).status).toBe(401);
  });
});

// The same database and key, with the production policy: private destinations refused, https required.
const production = await t.startAnotherApi({ config: { environment: "production", webhooksAllowPrivateDestinations: false } });
afterAll(() => production.stop());

describe("destination checks under the production policy", () => {
  const post = (url: string) =>
    fetch(`${production.url}${LIST}`, {
      method: "POST",
      headers: { authorization: `Bearer ${writer}`, "content-type": "application/json" },
      body: JSON.stringify({ url }),
    });

  it.each([
    ["https://127.0.0.1/hooks", "destination 127.0.0.1 is loopback"],
    ["https://10.0.0.5/hooks", "destination 10.0.0.5 is private"],
    ["https://169.254.169.254/latest/meta-data", "destination 169.254.169.254 is link-local"],
    ["https://[::1]/hooks", "destination ::1 is loopback"],
    ["https://[fc00::1]/hooks", "destination fc00::1 is unique-local"],
    ["https://[fd00:ec2::254]/hooks", "destination fd00:ec2::254 is unique-local"],
    ["http://hooks.example.com/hooks", "must use https"],
  ])("refuses %s", async (url, reason) => {
    const response = await post(url);
    await expectError(response, "post", LIST, 400, { details: { url: reason } });
  });

  it("refuses a host name that resolves to loopback without naming the address it resolved to", async () => {
    const response = await post("https://localhost:8443/hooks");
    await expectError(response, "post", LIST, 400, { details: { url: "host must resolve to public addresses only" } });
  });

  it("refuses the same on update", async () => {
    const created = await create({ url: "http://127.0.0.1:9/x" });
    const response = await fetch(`${production.url}${one(created.id)}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${writer}`, "content-type": "application/json" },
      body: JSON.stringify({ url: "https://192.168.1.10/hooks" }),
    });
    await expectError(response, "patch", ONE, 400, { details: { url: "destination 192.168.1.10 is private" } });
  });
});

describe("reading, updating and deleting", () => {
  it("lists the company's endpoints only, paginated", async () => {
    const globexEndpoint = await create({ url: "http://127.0.0.1:9/globex" }, globexWriter);
    const response = await api.get(`${LIST}?limit=2&page=1`, reader);
    const body = await expectContract<{ data: Array<{ id: string }>; pagination: { total: number } }>(response, "get", LIST);
    expect(body.data).toHaveLength(2);
    const all = await expectContract<{ data: Array<{ id: string }> }>(await api.get(`${LIST}?limit=100`, reader), "get", LIST);
    expect(all.data.map((endpoint) => endpoint.id)).not.toContain(globexEndpoint.id);
    expect(body.pagination.total).toBe(all.data.length);
  });

  it("answers 400 naming page or limit when out of range or not an integer", async () => {
    for (const [query, field] of [
      ["limit=101", "limit"],
      ["limit=0", "limit"],
      ["limit=2.5", "limit"],
      ["page=0", "page"],
      ["page=abc", "page"],
      // Past the safe integers: the integer check fails before the range check, and says the same.
      ["page=9007199254740993", "page"],
      ["page=99999999999999999999", "page"],
    ] as const) {
      const response = await api.get(`${LIST}?${query}`, reader);
      expect(response.status, query).toBe(400);
      const body = await expectContract<{ message: string; details: Record<string, string> }>(response, "get", LIST);
      expect(body.message).toBe("Validation failed");
      expect(body.details, query).toEqual({
        [field]: field === "limit" ? "must be an integer from 1 to 100" : "must be an integer from 1 to 1000000",
      });
    }
  });

  it("answers a page past the end with no rows and the true total", async () => {
    const all = await api.get(`${LIST}?limit=100`, reader);
    const { total } = (await expectContract<{ pagination: { total: number } }>(all, "get", LIST)).pagination;
    const beyond = await api.get(`${LIST}?page=${total + 1}&limit=1`, reader);
    expect(await expectContract(beyond, "get", LIST)).toEqual({
      error: false,
      data: [],
      pagination: { total, page: total + 1, limit: 1, pages: total },
    });
  });

  it("refuses an update that is not JSON (415) or over 1 MiB (413), changing nothing", async () => {
    const created = await create({ url: "http://127.0.0.1:9/x", description: "before" });
    const before = await endpointRows();
    const text = await api.patch(one(created.id), writer, "enabled=false", { contentType: "text/plain" });
    expect(text.status).toBe(415);
    expect(await expectContract(text, "patch", ONE)).toEqual({
      error: true,
      message: "Unsupported media type: expected application/json",
      code: 415,
    });
    const huge = await api.patch(one(created.id), writer, { description: "x".repeat(1024 * 1024) });
    expect(huge.status).toBe(413);
    const body = await expectContract(huge, "patch", ONE);
    expect(body).toEqual(payloadTooLargeBody(1_048_576));
    expect(await endpointRows()).toEqual(before);
  });

  it("updates any subset; disabling settles pending deliveries, enabling clears the reason", async () => {
    const created = await create({ url: "http://127.0.0.1:9/x" });
    const endpointId = ids.decode("webhook_endpoint", created.id)!;
    await t.db.transaction().execute((trx) =>
      recordEvent(trx, { companyId: acmeCompany, type: "debt.created", data: {}, occurredAt: t.clock.now() }),
    );
    t.clock.advance(60_000);

    const disabled = await api.patch(one(created.id), writer, { enabled: false, description: "paused", event_types: ["debt.updated"] });
    expect(disabled.status).toBe(200);
    expect((await expectContract<{ data: unknown }>(disabled, "patch", ONE)).data).toMatchObject({
      enabled: false,
      disabled_reason: "manual",
      disabled_at: "2026-11-21T10:01:00+00:00",
      description: "paused",
      event_types: ["debt.updated"],
      updated_at: "2026-11-21T10:01:00+00:00",
    });
    const deliveries = await t.db.selectFrom("webhook_deliveries").select("status").where("endpoint_id", "=", endpointId).execute();
    expect(deliveries).toEqual([{ status: "disabled" }]);

    const enabled = await api.patch(one(created.id), writer, { enabled: true });
    expect((await expectContract<{ data: unknown }>(enabled, "patch", ONE)).data).toMatchObject({
      enabled: true,
      disabled_reason: null,
      disabled_at: null,
    });
    await expectError(await api.patch(one(created.id), writer, {}), "patch", ONE, 400, { details: { body: "must set at least one field" } });
  });

  it("deletes an endpoint with its deliveries and their jobs", async () => {
    const created = await create({ url: "http://127.0.0.1:9/x" });
    const endpointId = ids.decode("webhook_endpoint", created.id)!;
    await recordEvent(t.db, { companyId: acmeCompany, type: "debt.created", data: {}, occurredAt: t.clock.now() });
    const [delivery] = await t.db.selectFrom("webhook_deliveries").select("id").where("endpoint_id", "=", endpointId).execute();

    const response = await api.del(one(created.id), writer);
    expect(response.status).toBe(200);
    expect(await expectContract(response, "delete", ONE)).toEqual({ error: false, message: "Webhook endpoint deleted successfully" });
    expect(await t.db.selectFrom("webhook_deliveries").select("id").where("endpoint_id", "=", endpointId).execute()).toEqual([]);
    const { rows } = await sql`select 1 from graphile_worker._private_jobs where key = ${`webhook_delivery:${delivery!.id}`}`.execute(t.db);
    expect(rows).toEqual([]);
    await expectError(await api.get(one(created.id), reader), "get", ONE, 404, { message: "Webhook endpoint not found" });
  });

  it("answers 404 for another company's endpoint, a tampered id and an id of another kind", async () => {
    const theirs = await create({ url: "http://127.0.0.1:9/globex" }, globexWriter);
    for (const id of [theirs.id, `${theirs.id.slice(0, -2)}xx`, acme.creditor_id]) {
      await expectError(await api.get(one(id), reader), "get", ONE, 404, { message: "Webhook endpoint not found" });
      await expectError(await api.patch(one(id), writer, { enabled: false }), "patch", ONE, 404, { message: "Webhook endpoint not found" });
      await expectError(await api.del(one(id), writer), "delete", ONE, 404, { message: "Webhook endpoint not found" });
      await expectError(await api.post(`${one(id)}/rotate-secret`, writer, undefined), "post", ROTATE, 404, {});
      await expectError(await api.get(`${one(id)}/deliveries`, reader), "get", DELIVERIES, 404, {});
      await expectError(await api.post(`${one(id)}/replay-failed`, writer, undefined), "post", REPLAY_FAILED, 404, {});
    }
    const unchanged = await expectContract<{ data: { enabled: boolean } }>(await api.get(one(theirs.id), globexWriter), "get", ONE);
    expect(unchanged.data.enabled).toBe(true);
  });
});

describe("POST /webhooks/endpoints/{id}/rotate-secret", () => {
  it("issues a new secret, shown once, while the previous one keeps signing for 24 h by default", async () => {
    const created = await create({ url: "http://127.0.0.1:9/x" });
    const response = await api.post(`${one(created.id)}/rotate-secret`, writer, undefined);
    expect(response.status).toBe(200);
    const body = await expectContract<{ message: string; data: { secret: string; previous_secret_expires_at: string } }>(response, "post", ROTATE);
    expect(body.message).toBe("Webhook endpoint secret rotated successfully");
    expect(body.data.secret).toMatch(SECRET);
    expect(body.data.secret).not.toBe(created.secret);
    const expires = new Date(t.clock.now().getTime() + 24 * 3600 * 1000);
    expect(body.data.previous_secret_expires_at).toBe(`${expires.toISOString().slice(0, 19)}+00:00`);
    const stored = await sealedSecrets(created.id);
    expect(box.open(acmeCompany, stored.secret_ciphertext)).toEqual(keyOf(body.data.secret));
    expect(box.open(acmeCompany, stored.previous_secret_ciphertext!)).toEqual(keyOf(created.secret));
    expect(stored.previous_secret_expires_at).toEqual(expires);
  });

  it("stops the previous secret at once with overlap_seconds=0, and validates the parameter", async () => {
    const created = await create({ url: "http://127.0.0.1:9/x" });
    const response = await api.post(`${one(created.id)}/rotate-secret?overlap_seconds=0`, writer, undefined);
    expect((await expectContract<{ data: unknown }>(response, "post", ROTATE)).data).toMatchObject({ previous_secret_expires_at: null });
    expect((await sealedSecrets(created.id)).previous_secret_ciphertext).toBeNull();
    await expectError(await api.post(`${one(created.id)}/rotate-secret?overlap_seconds=604801`, writer, undefined), "post", ROTATE, 400, {
      details: { overlap_seconds: "must be an integer from 0 to 604800" },
    });
  });

  it("needs debts:write", async () => {
    const created = await create({ url: "http://127.0.0.1:9/x" });
    await expectError(await api.post(`${one(created.id)}/rotate-secret`, reader, undefined), "post", ROTATE, 403, {});
  });
});

describe("deliveries and replays", () => {
  const setUp = async () => {
    const created = await create({ url: "http://127.0.0.1:9/x" });
    const endpointId = ids.decode("webhook_endpoint", created.id)!;
    await recordEvent(t.db, { companyId: acmeCompany, type: "debt.created", data: { id: "d" }, occurredAt: t.clock.now() });
    const delivery = await t.db.selectFrom("webhook_deliveries").selectAll().where("endpoint_id", "=", endpointId).executeTakeFirstOrThrow();
    const event = await t.db.selectFrom("webhook_events").selectAll().where("id", "=", delivery.event_id).executeTakeFirstOrThrow();
    return { created, endpointId, delivery, event };
  };
  const fail = async (deliveryId: number) => {
    await t.db
      .insertInto("webhook_delivery_attempts")
      .values([500, 502].map((status, index) => ({
        company_id: acmeCompany,
        delivery_id: deliveryId,
        attempted_at: new Date(t.clock.now().getTime() + index * 1000),
        status_code: status,
        duration_ms: 12,
        error: null,
        response_body_excerpt: "upstream down",
      })))
      .execute();
    await t.db
      .updateTable("webhook_deliveries")
      .set({ status: "failed", attempt_count: 2, retry_index: 10, completed_at: t.clock.now(), last_status_code: 502 })
      .where("id", "=", deliveryId)
      .execute();
  };

  it("lists an endpoint's deliveries with their event and attempts, newest attempt first", async () => {
    const { created, delivery, event } = await setUp();
    await fail(delivery.id);
    const response = await api.get(`${one(created.id)}/deliveries`, reader);
    const body = await expectContract<{ data: unknown[] }>(response, "get", DELIVERIES);
    expect(body).toEqual({
      error: false,
      data: [
        {
          event_id: event.public_id,
          event_type: "debt.created",
          event_timestamp: event.occurred_at.toISOString(),
          status: "failed",
          attempt_count: 2,
          next_attempt_at: null,
          created_at: expect.stringMatching(ISO),
          updated_at: expect.stringMatching(ISO),
          completed_at: expect.stringMatching(ISO),
          attempts: [
            { attempted_at: expect.stringMatching(ISO), status_code: 502, duration_ms: 12, error: null, response_body_excerpt: "upstream down" },
            { attempted_at: expect.stringMatching(ISO), status_code: 500, duration_ms: 12, error: null, response_body_excerpt: "upstream down" },
          ],
        },
      ],
      pagination: { total: 1, page: 1, limit: 20, pages: 1 },
    });
    const filtered = await api.get(`${one(created.id)}/deliveries?status=succeeded`, reader);
    expect((await expectContract<{ data: unknown[] }>(filtered, "get", DELIVERIES)).data).toEqual([]);
    await expectError(await api.get(`${one(created.id)}/deliveries?status=lost`, reader), "get", DELIVERIES, 400, {});
  });

  it("replays an event: the delivery is pending again with a job, under the same event id", async () => {
    const { created, delivery, event } = await setUp();
    await fail(delivery.id);
    const path = `/external-api/v1/webhooks/events/${event.public_id}/replay`;
    const response = await api.post(path, writer, undefined);
    expect(response.status).toBe(202);
    expect(await expectContract(response, "post", REPLAY_EVENT)).toEqual({
      error: false,
      message: "Webhook deliveries queued",
      data: { deliveries_queued: 1 },
    });
    expect(await t.db.selectFrom("webhook_deliveries").selectAll().where("id", "=", delivery.id).executeTakeFirstOrThrow()).toMatchObject({
      status: "pending",
      retry_index: 0,
      event_id: event.id,
    });
    const { rows } = await sql`select 1 from graphile_worker._private_jobs where key = ${`webhook_delivery:${delivery.id}`}`.execute(t.db);
    expect(rows).toHaveLength(1);

    const later = await create({ url: "http://127.0.0.1:9/later" });
    const toOne = await api.post(`${path}?endpoint_id=${later.id}`, writer, undefined);
    expect(await expectContract(toOne, "post", REPLAY_EVENT)).toMatchObject({ data: { deliveries_queued: 1 } });
    expect(created.id).not.toBe(later.id);
  });

  it("answers 404 for an unknown, malformed or foreign event and 409 for a disabled endpoint", async () => {
    const { created, event } = await setUp();
    const replay = (eventId: string, token = writer, query = "") => api.post(`/external-api/v1/webhooks/events/${eventId}/replay${query}`, token, undefined);
    await expectError(await replay(`evt_${"0".repeat(32)}`), "post", REPLAY_EVENT, 404, { message: "Webhook event not found" });
    await expectError(await replay("not-an-event"), "post", REPLAY_EVENT, 404, { message: "Webhook event not found" });
    await expectError(await replay(event.public_id, globexWriter), "post", REPLAY_EVENT, 404, { message: "Webhook event not found" });
    const theirs = await create({ url: "http://127.0.0.1:9/globex" }, globexWriter);
    await expectError(await replay(event.public_id, writer, `?endpoint_id=${theirs.id}`), "post", REPLAY_EVENT, 404, {
      message: "Webhook endpoint not found",
    });
    await api.patch(one(created.id), writer, { enabled: false });
    await expectError(await replay(event.public_id, writer, `?endpoint_id=${created.id}`), "post", REPLAY_EVENT, 409, {
      error_code: "webhook_endpoint_disabled",
    });
    await expectError(await replay(event.public_id, reader), "post", REPLAY_EVENT, 403, {});
  });

  it("answers 404, writing nothing, when the retention purge deletes the event during the replay", async () => {
    const { delivery, event } = await setUp();
    await fail(delivery.id);
    const later = await create({ url: "http://127.0.0.1:9/during-purge" });
    const path = `/external-api/v1/webhooks/events/${event.public_id}/replay?endpoint_id=${later.id}`;
    let replayed: Promise<Response> | undefined;
    // What the purge does (@dc/db purgeWebhookEventsBatch): lock the event, delete its settled deliveries and it.
    await t.db.transaction().execute(async (trx) => {
      await sql`select id from webhook_events where id = ${event.id} for update`.execute(trx);
      replayed = api.post(path, writer, undefined);
      await new Promise((resolve) => setTimeout(resolve, 300)); // the replay reaches the lock and waits
      await sql`delete from webhook_deliveries where event_id = ${event.id}`.execute(trx);
      await sql`delete from webhook_events where id = ${event.id}`.execute(trx);
    });
    await expectError(await replayed!, "post", REPLAY_EVENT, 404, { message: "Webhook event not found" });
    const left = await t.db.selectFrom("webhook_deliveries").select("id").where("event_id", "=", event.id).execute();
    expect(left).toEqual([]);
  });

  it("replays an endpoint's failed deliveries, not the others", async () => {
    const { created, endpointId, delivery } = await setUp();
    await fail(delivery.id);
    await recordEvent(t.db, { companyId: acmeCompany, type: "debt.updated", data: {}, occurredAt: t.clock.now() });
    const response = await api.post(`${one(created.id)}/replay-failed`, writer, undefined);
    expect(response.status).toBe(202);
    expect(await expectContract(response, "post", REPLAY_FAILED)).toMatchObject({ data: { deliveries_queued: 1 } });
    const statuses = await t.db.selectFrom("webhook_deliveries").select("status").where("endpoint_id", "=", endpointId).execute();
    expect(statuses).toEqual([{ status: "pending" }, { status: "pending" }]);
    await api.patch(one(created.id), writer, { enabled: false });
    await expectError(await api.post(`${one(created.id)}/replay-failed`, writer, undefined), "post", REPLAY_FAILED, 409, {
      error_code: "webhook_endpoint_disabled",
    });
  });
});
