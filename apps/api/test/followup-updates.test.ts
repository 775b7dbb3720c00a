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

const ONE = "/external-api/v1/followups/{id}";

const send = (
  method: "PUT" | "PATCH",
  key: number | string,
  body: unknown,
  options: { token?: string; contentType?: string } = {},
) =>
  t.request(`/external-api/v1/followups/${typeof key === "number" ? ids.encode("followup", key) : key}`, {
    method,
    headers: {
      authorization: `Bearer ${options.token ?? token}`,
      "content-type": options.contentType ?? "application/json",
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

const stored = (key: number) =>
  t.db.selectFrom("followups").selectAll().where("id", "=", key).executeTakeFirstOrThrow();
const balance = async () =>
  (await t.db.selectFrom("companies").select("current_credits").where("id", "=", acmeCompany).executeTakeFirstOrThrow())
    .current_credits;
const ledgerOf = (key: number) =>
  t.db.selectFrom("credit_transactions").select(["delta", "reason"]).where("followup_id", "=", key).execute();

describe.each(["PUT", "PATCH"] as const)("%s /followups/{id}", (method) => {
  it("updates the given fields only, clears nullable ones with null, and keeps debt and counts", async () => {
    const key = await rows.followup(acme, acmeDebt, { type: "call", summary: "old", notes: "keep", call_id: "c-1" });
    const countBefore = (
      await t.db.selectFrom("debts").select("followups_count").where("id", "=", acmeDebt).executeTakeFirstOrThrow()
    ).followups_count;
    t.clock.advance(1_000);
    const response = await send(method, key, {
      summary: "Agreed to a plan",
      call_id: null,
      scheduled_at: "2026-12-01T09:00:00+01:00",
      is_retry: true,
      direction: "inbound",
    });
    expect(response.status).toBe(200);
    const body = await expectContract(response, method, ONE);
    expect(body.message).toBe("Followup updated successfully");
    expect(body.data).toMatchObject({
      id: ids.encode("followup", key),
      debt_id: ids.encode("debt", acmeDebt),
      type: "call",
      status: "on_hold",
      summary: "Agreed to a plan",
      notes: "keep",
      call_id: null,
      scheduled_at: "2026-12-01T08:00:00+00:00",
      is_retry: true,
      direction: "inbound",
      processed_at: null,
      credits_charged: 0,
      updated_at: formatIsoOffset(t.clock.now()),
    });
    expect(await stored(key)).toMatchObject({
      summary: "Agreed to a plan",
      notes: "keep",
      call_id: null,
      debt_id: acmeDebt,
    });
    expect(
      (await t.db.selectFrom("debts").select("followups_count").where("id", "=", acmeDebt).executeTakeFirstOrThrow())
        .followups_count,
    ).toBe(countBefore);
  });

  it("charges once, when the followup first becomes executed; later changes neither charge nor refund", async () => {
    const key = await rows.followup(acme, acmeDebt, { type: "sms", status: "scheduled" });
    const before = await balance();
    const first = await expectContract(await send(method, key, { status: "sent" }), method, ONE);
    expect(first.data).toMatchObject({
      status: "sent",
      credits_charged: 1,
      processed_at: formatIsoOffset(t.clock.now()),
    });
    expect(await balance()).toBe(before - 1);
    t.clock.advance(1_000);
    const again = await expectContract(await send(method, key, { status: "delivered" }), method, ONE);
    expect(again.data).toMatchObject({
      status: "delivered",
      credits_charged: 1,
      processed_at: first.data.processed_at,
    });
    const failed = await expectContract(await send(method, key, { status: "failed", type: "whatsapp" }), method, ONE);
    expect(failed.data).toMatchObject({ status: "failed", type: "whatsapp", credits_charged: 1 });
    expect(await balance()).toBe(before - 1);
    expect(await ledgerOf(key)).toEqual([{ delta: -1, reason: "followup_executed" }]);
  });

  it("prices a call by the duration it has once executed", async () => {
    const key = await rows.followup(acme, acmeDebt, { type: "call", status: "in_progress", duration_ms: 10_000 });
    const before = await balance();
    const { data } = await expectContract(
      await send(method, key, { status: "deal_not_found", duration_ms: 125_000 }),
      method,
      ONE,
    );
    expect(data.credits_charged).toBe(3);
    expect(await balance()).toBe(before - 3);
  });

  it("answers 404 `Followup not found` for another company's, unknown and forged ids, changing nothing", async () => {
    const foreign = await rows.followup(globex, globexDebt, { type: "sms", status: "scheduled" });
    for (const id of [
      ids.encode("followup", foreign),
      ids.encode("followup", 987_654),
      "garbage",
      ids.encode("debt", acmeDebt),
    ]) {
      const response = await send(method, id, { status: "sent" });
      expect(response.status, id).toBe(404);
      expect(await expectContract(response, method, ONE)).toEqual({
        error: true,
        message: "Followup not found",
        code: 404,
      });
    }
    expect(await stored(foreign)).toMatchObject({ status: "scheduled", processed_at: null, credits_charged: 0 });
  });

  it("answers 400 for an empty body, unknown keys (debt_id included), wrong types and malformed JSON, changing nothing", async () => {
    const key = await rows.followup(acme, acmeDebt, { type: "call", summary: "same" });
    const before = await stored(key);
    const cases: ReadonlyArray<readonly [unknown, Record<string, unknown>]> = [
      [{}, { body: "must set at least one field" }],
      [{ debt_id: ids.encode("debt", acmeDebt) }, { debt_id: 'unknown field "debt_id"' }],
      [{ summary: "new", colour: "red" }, { colour: 'unknown field "colour"' }],
      [
        { type: "fax" },
        { type: "must be one of: call, email, sms, whatsapp, voicemail, manual_call, physical, postmail" },
      ],
      [{ status: null }, { status: expect.stringMatching(/^must be one of: on_hold/) }],
      [{ duration_ms: "60" }, { duration_ms: "must be an integer from 0 to 2147483647" }],
      [{ is_retry: null }, { is_retry: expect.any(String) }],
      ['{"summary": "x",}', { body: expect.stringMatching(/^Malformed JSON/) }],
      ["null", { body: expect.any(String) }],
    ];
    for (const [body, details] of cases) {
      const response = await send(method, key, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect((await expectContract(response, method, ONE)).details, JSON.stringify(body)).toEqual(details);
    }
    const text = await send(method, key, '{"summary":"x"}', { contentType: "text/plain" });
    expect(text.status).toBe(415);
    expect((await expectContract(text, method, ONE)).message).toBe("Unsupported media type: expected application/json");
    expect(await stored(key)).toEqual(before);
  });

  it("refuses a body over 1 MiB with 413 payload_too_large, changing nothing", async () => {
    const key = await rows.followup(acme, acmeDebt, { type: "call", summary: "same" });
    const before = await stored(key);
    const huge = await send(method, key, { summary: "x".repeat(1024 * 1024) });
    expect(huge.status).toBe(413);
    const body = await expectContract(huge, method, ONE);
    expect(body).toEqual(payloadTooLargeBody(1_048_576));
    expect(await stored(key)).toEqual(before);
  });

  it("requires followups:write", async () => {
    const key = await rows.followup(acme, acmeDebt, { summary: "same" });
    const response = await send(method, key, { summary: "changed" }, { token: await t.token(acme, "followups:read") });
    expect(response.status).toBe(403);
    expect(await expectContract(response, method, ONE)).toEqual({
      error: true,
      message: 'Required scope "followups:write" not found in token',
      code: 403,
    });
    expect((await stored(key)).summary).toBe("same");
  });
});

describe("concurrent updates", () => {
  it("charge a followup once when two requests execute it at the same time", async () => {
    const key = await rows.followup(acme, acmeDebt, { type: "call", status: "in_progress", duration_ms: 200_000 });
    const before = await balance();
    const responses = await Promise.all([
      send("PATCH", key, { status: "deal_found" }),
      send("PUT", key, { status: "no_answer" }),
      send("PATCH", key, { status: "sent" }),
    ]);
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200]);
    expect(await balance()).toBe(before - 4);
    expect(await ledgerOf(key)).toEqual([{ delta: -4, reason: "followup_executed" }]);
    expect((await stored(key)).credits_charged).toBe(4);
  });
});
