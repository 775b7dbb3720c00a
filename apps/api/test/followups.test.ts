import { formatIsoOffset } from "@dc/contract";
import { describe, expect, it } from "vitest";
import { collectionRows } from "./support/collection-rows.ts";
import { expectContract } from "./support/contract-validator.ts";
import { payloadTooLargeBody } from "./support/json-api.ts";
import { startTestApi } from "./support/harness.ts";

const t = await startTestApi();
const { ids } = t.api.services;
const rows = collectionRows(t.db, ids);
const acme = await t.tenant("Acme Collections");
const globex = await t.tenant("Globex");
const acmeCompany = rows.companyOf(acme);
const acmeDebt = await rows.debt(acme);
const globexDebt = await rows.debt(globex);
const token = await t.token(acme);

const FOLLOWUPS = "/external-api/v1/followups";
const ONE = "/external-api/v1/followups/{id}";
const ISO_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/;
const TYPES = "call, email, sms, whatsapp, voicemail, manual_call, physical, postmail";

const post = (body: unknown, options: { token?: string; contentType?: string } = {}) =>
  t.request(FOLLOWUPS, {
    method: "POST",
    headers: {
      authorization: `Bearer ${options.token ?? token}`,
      "content-type": options.contentType ?? "application/json",
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

/** Everything a followup write can change, to prove a refused request changed nothing. */
const state = async () => ({
  followups: (
    await t.db
      .selectFrom("followups")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow()
  ).n,
  followupsCounts: (await t.db.selectFrom("debts").select(["id", "followups_count"]).orderBy("id").execute()).map(
    (row) => row.followups_count,
  ),
  credits: (await t.db.selectFrom("companies").select("current_credits").orderBy("id").execute()).map(
    (row) => row.current_credits,
  ),
  ledger: (
    await t.db
      .selectFrom("credit_transactions")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow()
  ).n,
});

const debtCount = async (debtId: number) =>
  (await t.db.selectFrom("debts").select("followups_count").where("id", "=", debtId).executeTakeFirstOrThrow())
    .followups_count;
const credits = async () =>
  (await t.db.selectFrom("companies").select("current_credits").where("id", "=", acmeCompany).executeTakeFirstOrThrow())
    .current_credits;

describe("POST /followups", () => {
  it("creates a followup with defaults and bumps the debt's followups_count", async () => {
    const before = await debtCount(acmeDebt);
    const now = formatIsoOffset(t.clock.now());
    const response = await post({ debt_id: ids.encode("debt", acmeDebt), type: "email" });
    expect(response.status).toBe(201);
    const body = await expectContract(response, "post", FOLLOWUPS);
    expect(body).toEqual({
      error: false,
      message: "Followup created successfully",
      data: {
        id: expect.any(String),
        debt_id: ids.encode("debt", acmeDebt),
        status: "on_hold",
        type: "email",
        call_date: null,
        scheduled_at: null,
        summary: null,
        notes: null,
        call_id: null,
        audio_url: null,
        pdf_url: null,
        duration_ms: null,
        disconnection_reason: null,
        direction: null,
        phone_number_used: null,
        is_retry: false,
        processed_at: null,
        credits_charged: 0,
        triggered_payment: false,
        email_opened: false,
        email_open_count: 0,
        email_first_opened_at: null,
        email_clicked: false,
        email_click_count: 0,
        created_at: now,
        updated_at: now,
      },
    });
    const id = ids.decode("followup", body.data.id);
    expect(id).toBeDefined();
    const stored = await t.db.selectFrom("followups").selectAll().where("id", "=", id!).executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ company_id: acmeCompany, debt_id: acmeDebt, status: "on_hold", type: "email" });
    expect(await debtCount(acmeDebt)).toBe(before + 1);
  });

  it("stores every field of 4.6 and charges an executed call once, by duration", async () => {
    const creditsBefore = await credits();
    const now = t.clock.now();
    const response = await post({
      debt_id: ids.encode("debt", acmeDebt),
      type: "call",
      status: "deal_found",
      call_date: "2026-11-20T14:30:00+02:00",
      scheduled_at: "2026-11-20T12:00:00Z",
      summary: "Promised to pay on Friday",
      notes: "Polite",
      call_id: "prov-call-123",
      audio_url: "https://recordings.example/calls/123.mp3",
      phone_number_used: "+33612345678",
      disconnection_reason: "customer_hangup",
      duration_ms: 61_000,
      direction: "outbound",
      is_retry: true,
    });
    expect(response.status).toBe(201);
    const { data } = await expectContract(response, "post", FOLLOWUPS);
    const expires = Math.floor(now.getTime() / 1000) + 3600;
    expect(data).toMatchObject({
      status: "deal_found",
      type: "call",
      call_date: "2026-11-20T12:30:00+00:00",
      scheduled_at: "2026-11-20T12:00:00+00:00",
      summary: "Promised to pay on Friday",
      notes: "Polite",
      call_id: "prov-call-123",
      pdf_url: null,
      duration_ms: 61_000,
      disconnection_reason: "customer_hangup",
      direction: "outbound",
      phone_number_used: "+33612345678",
      is_retry: true,
      processed_at: formatIsoOffset(now),
      credits_charged: 2,
      media_urls_expire_at: formatIsoOffset(new Date(expires * 1000)),
    });
    expect(data.audio_url).toMatch(
      new RegExp(
        `^${t.api.url}/external-api/v1/media/[A-Za-z0-9_-]+\\.${data.id}\\.audio\\?expires=${expires}&signature=[A-Za-z0-9_-]{43}$`,
      ),
    );
    expect(data.audio_url).not.toContain("recordings.example");
    expect(await credits()).toBe(creditsBefore - 2);
    const ledger = await t.db
      .selectFrom("credit_transactions")
      .select(["delta", "reason", "followup_id", "company_id"])
      .where("followup_id", "=", ids.decode("followup", data.id)!)
      .execute();
    expect(ledger).toEqual([
      { delta: -2, reason: "followup_executed", followup_id: ids.decode("followup", data.id), company_id: acmeCompany },
    ]);
  });

  it("charges nothing for an executed e-mail, and nothing for a call not yet executed", async () => {
    const before = await state();
    const email = await expectContract(
      await post({ debt_id: ids.encode("debt", acmeDebt), type: "email", status: "sent" }),
      "post",
      FOLLOWUPS,
    );
    expect(email.data).toMatchObject({ processed_at: expect.stringMatching(ISO_OFFSET), credits_charged: 0 });
    const call = await expectContract(
      await post({ debt_id: ids.encode("debt", acmeDebt), type: "call", status: "scheduled", duration_ms: 240_000 }),
      "post",
      FOLLOWUPS,
    );
    expect(call.data).toMatchObject({ processed_at: null, credits_charged: 0 });
    const after = await state();
    expect(after.credits).toEqual(before.credits);
    expect(after.ledger).toBe(before.ledger);
    expect(after.followups).toBe(before.followups + 2);
  });

  it("lets the balance go negative rather than lose an executed activity", async () => {
    await t.db.updateTable("companies").set({ current_credits: 1 }).where("id", "=", acmeCompany).execute();
    const response = await post({
      debt_id: ids.encode("debt", acmeDebt),
      type: "call",
      status: "no_answer",
      duration_ms: 300_000,
    });
    expect((await expectContract(response, "post", FOLLOWUPS)).data.credits_charged).toBe(5);
    expect(await credits()).toBe(-4);
    await t.db.updateTable("companies").set({ current_credits: 100 }).where("id", "=", acmeCompany).execute();
  });

  it("answers 403 `Access denied to this debt` for another company's debt and writes nothing", async () => {
    const before = await state();
    const response = await post({ debt_id: ids.encode("debt", globexDebt), type: "sms", status: "sent" });
    expect(response.status).toBe(403);
    expect(await expectContract(response, "post", FOLLOWUPS)).toEqual({
      error: true,
      message: "Access denied to this debt",
      code: 403,
    });
    expect(await state()).toEqual(before);
  });

  it("answers 404 `Debt not found` for an unknown, forged or other-kind id and writes nothing", async () => {
    const before = await state();
    const followupId = await rows.followup(acme, acmeDebt);
    const after = await state();
    for (const debtId of [
      ids.encode("debt", 987_654),
      "not-an-id",
      ids.encode("followup", followupId),
      `${ids.encode("debt", acmeDebt)}x`,
    ]) {
      const response = await post({ debt_id: debtId, type: "email" });
      expect(response.status, debtId).toBe(404);
      expect(await expectContract(response, "post", FOLLOWUPS)).toEqual({
        error: true,
        message: "Debt not found",
        code: 404,
      });
    }
    expect(await state()).toEqual(after);
    expect(after.followups).toBe(before.followups + 1);
  });

  it("reports a missing debt_id on debt_id and an invalid type with the valid types", async () => {
    const before = await state();
    const response = await post({ type: "fax" });
    expect(response.status).toBe(400);
    const body = await expectContract(response, "post", FOLLOWUPS);
    expect(body).toEqual({
      error: true,
      message: "Validation failed",
      code: 400,
      details: { debt_id: "is missing", type: `must be one of: ${TYPES}` },
      errors: [
        { property: "debt_id", message: "is missing" },
        { property: "type", message: `must be one of: ${TYPES}` },
      ],
    });
    expect(await state()).toEqual(before);
  });

  it("names every invalid field, wrong types and unknown keys included, and writes nothing", async () => {
    const before = await state();
    const response = await post({
      debt_id: ids.encode("debt", acmeDebt),
      type: "call",
      status: "done",
      call_date: "2026-11-20 14:30",
      scheduled_at: "2026-02-30T10:00:00Z",
      summary: 42,
      notes: ["a"],
      call_id: "x".repeat(256),
      audio_url: "javascript:alert(1)",
      phone_number_used: "0612345678",
      disconnection_reason: ["hangup"],
      duration_ms: 1.5,
      direction: "sideways",
      is_retry: "yes",
      credits_charged: 0,
    });
    expect(response.status).toBe(400);
    const { details } = await expectContract(response, "post", FOLLOWUPS);
    expect(Object.keys(details).sort()).toEqual(
      [
        "status",
        "call_date",
        "scheduled_at",
        "summary",
        "notes",
        "call_id",
        "audio_url",
        "phone_number_used",
        "disconnection_reason",
        "duration_ms",
        "direction",
        "is_retry",
        "credits_charged",
      ].sort(),
    );
    expect(details).toMatchObject({
      status: expect.stringMatching(/^must be one of: on_hold, scheduled/),
      call_date: "must be an ISO 8601 date-time with an offset or Z",
      scheduled_at: "must be an ISO 8601 date-time with an offset or Z",
      call_id: "must be at most 255 characters",
      audio_url: "must be an absolute http or https URL",
      direction: "must be one of: inbound, outbound",
      duration_ms: "must be an integer from 0 to 2147483647",
      credits_charged: 'unknown field "credits_charged"',
    });
    expect(await state()).toEqual(before);
  });

  it("refuses malformed JSON, NUL characters, a non-object body and a non-JSON content type, writing nothing", async () => {
    const before = await state();
    const nul = await post({ debt_id: ids.encode("debt", acmeDebt), type: "email", notes: "a\u0000b" });
    expect(nul.status).toBe(400);
    expect((await expectContract(nul, "post", FOLLOWUPS)).details).toEqual({
      notes: "must not contain NUL characters",
    });
    const malformed = await post('{"debt_id": ');
    expect(malformed.status).toBe(400);
    expect((await expectContract(malformed, "post", FOLLOWUPS)).details.body).toMatch(/^Malformed JSON/);
    const list = await post([{ debt_id: ids.encode("debt", acmeDebt), type: "email" }]);
    expect(list.status).toBe(400);
    expect(Object.keys((await expectContract(list, "post", FOLLOWUPS)).details)).toEqual(["body"]);
    const text = await post(JSON.stringify({ debt_id: ids.encode("debt", acmeDebt), type: "email" }), {
      contentType: "text/plain",
    });
    expect(text.status).toBe(415);
    expect(await expectContract(text, "post", FOLLOWUPS)).toEqual({
      error: true,
      message: "Unsupported media type: expected application/json",
      code: 415,
    });
    expect(await state()).toEqual(before);
  });

  it("refuses a body over 1 MiB with 413 payload_too_large before reading it, writing nothing", async () => {
    const before = await state();
    const huge = await post({ debt_id: ids.encode("debt", acmeDebt), type: "email", notes: "x".repeat(1024 * 1024) });
    expect(huge.status).toBe(413);
    const body = await expectContract(huge, "post", FOLLOWUPS);
    expect(body).toEqual(payloadTooLargeBody(1_048_576));
    expect(await state()).toEqual(before);
  });

  it("refuses text that would be stored altered: lone surrogates, bytes that are not UTF-8, other charsets, compressed bodies", async () => {
    const before = await state();
    const debtId = ids.encode("debt", acmeDebt);
    const surrogate = await post(`{"debt_id":"${debtId}","type":"email","notes":"A\\ud800"}`);
    expect(surrogate.status).toBe(400);
    expect((await expectContract(surrogate, "post", FOLLOWUPS)).details).toEqual({
      notes: "must not contain an unpaired UTF-16 surrogate",
    });
    // A pair is one character, and welcome.
    const emoji = await post(`{"debt_id":"${debtId}","type":"email","notes":"\\ud83e\\udd84"}`);
    expect(emoji.status).toBe(201);
    expect((await expectContract(emoji, "post", FOLLOWUPS)).data.notes).toBe("🦄");

    const latin1 = Buffer.concat([Buffer.from(`{"debt_id":"${debtId}","type":"email","notes":"Caf`), Buffer.from([0xe9]), Buffer.from('"}')]);
    const send = (body: Buffer, headers: Record<string, string>) =>
      t.request(FOLLOWUPS, { method: "POST", headers: { authorization: `Bearer ${token}`, ...headers }, body });
    const notUtf8 = await send(latin1, { "content-type": "application/json" });
    expect(notUtf8.status).toBe(400);
    expect((await expectContract(notUtf8, "post", FOLLOWUPS)).details).toEqual({ body: "Malformed JSON: the body is not valid UTF-8" });
    const otherCharset = await send(latin1, { "content-type": "application/json; charset=latin1" });
    expect(otherCharset.status).toBe(415);
    expect(await expectContract(otherCharset, "post", FOLLOWUPS)).toEqual({
      error: true,
      message: "Unsupported media type: expected application/json",
      code: 415,
    });
    const compressed = await send(latin1, { "content-type": "application/json", "content-encoding": "gzip" });
    expect(compressed.status).toBe(415);
    expect(compressed.headers.get("accept-encoding")).toBe("identity");
    expect(await expectContract(compressed, "post", FOLLOWUPS)).toEqual({
      error: true,
      message: "Unsupported content encoding: send the body uncompressed (identity)",
      code: 415,
      error_code: "unsupported_content_encoding",
    });
    const utf8 = await send(Buffer.from(`{"debt_id":"${debtId}","type":"email","notes":"Café"}`), {
      "content-type": "application/json; charset=UTF-8",
    });
    expect(utf8.status).toBe(201);
    expect((await state()).followups).toBe(before.followups + 2);
  });

  it("writes timestamps of early years with four digits, and refuses year 0", async () => {
    const debtId = ids.encode("debt", acmeDebt);
    const early = await post({ debt_id: debtId, type: "call", call_date: "0999-01-01T00:00:00-03:00", scheduled_at: "0099-06-01T00:00:00Z" });
    expect(early.status).toBe(201);
    expect((await expectContract(early, "post", FOLLOWUPS)).data).toMatchObject({
      call_date: "0999-01-01T03:00:00+00:00",
      scheduled_at: "0099-06-01T00:00:00+00:00",
    });
    const before = await state();
    const yearZero = await post({ debt_id: debtId, type: "call", call_date: "0000-01-01T00:00:00Z" });
    expect(yearZero.status).toBe(400);
    expect(Object.keys((await expectContract(yearZero, "post", FOLLOWUPS)).details)).toEqual(["call_date"]);
    expect(await state()).toEqual(before);
  });

  it("requires followups:write and a valid token", async () => {
    const before = await state();
    const readOnly = await t.token(acme, "followups:read debts:read");
    const response = await post({ debt_id: ids.encode("debt", acmeDebt), type: "email" }, { token: readOnly });
    expect(response.status).toBe(403);
    expect(await expectContract(response, "post", FOLLOWUPS)).toEqual({
      error: true,
      message: 'Required scope "followups:write" not found in token',
      code: 403,
    });
    const anonymous = await t.request(FOLLOWUPS, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(anonymous.status).toBe(401);
    expect(await expectContract(anonymous, "post", FOLLOWUPS)).toEqual({
      error: true,
      message: "Authentication credentials are missing or invalid",
      code: 401,
    });
    expect(await state()).toEqual(before);
  });
});

describe("GET /followups/{id}", () => {
  it("returns one followup of the company", async () => {
    const created = await expectContract(
      await post({ debt_id: ids.encode("debt", acmeDebt), type: "sms", status: "delivered", summary: "Reminder" }),
      "post",
      FOLLOWUPS,
    );
    const response = await t.get(`${FOLLOWUPS}/${created.data.id}`, token);
    expect(response.status).toBe(200);
    expect(await expectContract(response, "get", ONE)).toEqual({
      error: false,
      message: "Followup retrieved successfully",
      data: created.data,
    });
  });

  it("shows engagement counters as flags and counts", async () => {
    const id = await rows.followup(acme, acmeDebt, {
      email_open_count: 3,
      email_click_count: 1,
      email_first_opened_at: new Date("2026-11-20T08:00:00Z"),
      triggered_payment: true,
    });
    const { data } = await expectContract(await t.get(`${FOLLOWUPS}/${ids.encode("followup", id)}`, token), "get", ONE);
    expect(data).toMatchObject({
      email_opened: true,
      email_open_count: 3,
      email_first_opened_at: "2026-11-20T08:00:00+00:00",
      email_clicked: true,
      email_click_count: 1,
      triggered_payment: true,
    });
    expect(data.created_at).toMatch(ISO_OFFSET);
    expect(data).not.toHaveProperty("media_urls_expire_at");
  });

  it("answers 404 `Followup not found` for another company's, unknown, forged and other-kind ids", async () => {
    const foreign = await rows.followup(globex, globexDebt);
    for (const id of [
      ids.encode("followup", foreign),
      ids.encode("followup", 987_654),
      "garbage",
      ids.encode("debt", acmeDebt),
    ]) {
      const response = await t.get(`${FOLLOWUPS}/${id}`, token);
      expect(response.status, id).toBe(404);
      expect(await expectContract(response, "get", ONE)).toEqual({
        error: true,
        message: "Followup not found",
        code: 404,
      });
    }
  });

  it("requires followups:read", async () => {
    const id = ids.encode("followup", await rows.followup(acme, acmeDebt));
    const response = await t.get(`${FOLLOWUPS}/${id}`, await t.token(acme, "followups:write"));
    expect(response.status).toBe(403);
    expect(await expectContract(response, "get", ONE)).toEqual({
      error: true,
      message: 'Required scope "followups:read" not found in token',
      code: 403,
    });
  });
});
