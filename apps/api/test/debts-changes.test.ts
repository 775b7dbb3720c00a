import { formatIsoOffset } from "@dc/contract";
import { describe, expect, it } from "vitest";
import { collectionRows } from "./support/collection-rows.ts";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { jsonApi, rowCounts } from "./support/json-api.ts";

const t = await startTestApi();
const { ids } = t.api.services;
const rows = collectionRows(t.db, ids);
const api = jsonApi(t.request);
const acme = await t.tenant("Acme Collections");
const globex = await t.tenant("Globex");
const token = await t.token(acme);
const readOnly = await t.token(acme, "debts:read");

const DEBTS = "/external-api/v1/debts";
const ONE = "/external-api/v1/debts/{id}";
const one = (id: string) => `${DEBTS}/${id}`;
/** The campaign the tenant was created with. */
const acmeCampaign = () =>
  t.db
    .selectFrom("campaigns")
    .select("id")
    .where("api_reference", "=", acme.campaign_api_reference)
    .executeTakeFirstOrThrow();

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read JSON bodies field by field
type Json = Record<string, any>;

const create = async (body: Json): Promise<Json> => {
  const response = await api.post(DEBTS, token, body);
  if (response.status !== 201) throw new Error(`create failed: ${response.status} ${await response.text()}`);
  return (await expectContract<{ data: Json }>(response, "post", DEBTS)).data;
};
const debtRow = (id: string) =>
  t.db.selectFrom("debts").selectAll().where("id", "=", ids.decode("debt", id)!).executeTakeFirst();

const expectError = async (response: Response, method: string, status: number, body: Json) => {
  expect(response.status).toBe(status);
  expect(await expectContract(response, method, ONE)).toEqual({ error: true, code: status, ...body });
};

describe.each(["put", "patch"] as const)("%s /debts/{id}", (method) => {
  const update = (id: string, body: unknown, accessToken = token, contentType?: string) =>
    api.send(method.toUpperCase(), one(id), accessToken, body, contentType === undefined ? {} : { contentType });

  it("updates any subset of the writable fields, timeline_id included, and stamps updated_at", async () => {
    const debt = await create({
      amount: 90,
      currency: "EUR",
      lastname: "Before",
      email: "old@acme.fr",
      validate_emails: true,
      city: "Lyon",
    });
    t.clock.advance(60_000);
    const response = await update(debt["id"], {
      lastname: "After",
      email: "new@acme.fr",
      city: null,
      timeline_id: acme.timeline_id,
      metadata: { step: 2 },
      due_date: "2027-01-31",
    });
    expect(response.status).toBe(200);
    const body = await expectContract(response, method, ONE);
    expect(body).toEqual({
      error: false,
      message: "Debt updated successfully",
      data: {
        ...Object.fromEntries(Object.entries(debt).filter(([key]) => key !== "email_validation")),
        lastname: "After",
        email: "new@acme.fr",
        city: null,
        timeline_id: acme.timeline_id,
        metadata: { step: 2 },
        due_date: "2027-01-31",
        updated_at: formatIsoOffset(t.clock.now()),
        // Setting a timeline enrolls the debt on it: its first step waits as a followup (docs/decisions/0600).
        followups_count: 1,
        last_timeline_restart: formatIsoOffset(t.clock.now()),
      },
    });
    const row = await debtRow(debt["id"]);
    expect(row).toMatchObject({
      lastname: "After",
      email: "new@acme.fr",
      city: null,
      timeline_id: ids.decode("timeline", acme.timeline_id),
      // The previous report described another address.
      email_validation: null,
      status: "status.default.pending",
      amount_minor: 9_000,
    });
    const cleared = await expectContract(await update(debt["id"], { timeline_id: null }), method, ONE);
    expect(cleared.data.timeline_id).toBeNull();
    const enrollment = await t.db
      .selectFrom("enrollments")
      .select(["state", "reason"])
      .where("debt_id", "=", ids.decode("debt", debt["id"])!)
      .executeTakeFirst();
    expect(enrollment).toEqual({ state: "stopped", reason: "timeline_removed" });
  });

  it("links the debt to the debtor of a new debtor_reference, and unlinks it with null", async () => {
    const debt = await create({ amount: 10, currency: "EUR", lastname: "Linked" });
    const linked = await expectContract(await update(debt["id"], { debtor_reference: `REF-${method}` }), method, ONE);
    const debtor = await t.db
      .selectFrom("debtors")
      .select("id")
      .where("debtor_reference", "=", `REF-${method}`)
      .executeTakeFirstOrThrow();
    expect(linked.data).toMatchObject({
      debtor_reference: `REF-${method}`,
      debtor_id: ids.encode("debtor", debtor.id),
    });
    const unlinked = await expectContract(await update(debt["id"], { debtor_reference: null }), method, ONE);
    expect(unlinked.data).toMatchObject({ debtor_reference: null, debtor_id: null });
  });

  it("answers 409 when the new internal_id belongs to another debt of the creditor", async () => {
    await create({ amount: 10, currency: "EUR", lastname: "Holder", internal_id: `TAKEN-${method}` });
    const debt = await create({ amount: 10, currency: "EUR", lastname: "Taker" });
    await expectError(await update(debt["id"], { internal_id: `TAKEN-${method}` }), method, 409, {
      message: "A debt with this internal_id already exists for this creditor",
      error_code: "duplicate_internal_id",
    });
    expect((await debtRow(debt["id"]))!.internal_id).toBeNull();
  });

  it("answers 400 for read-only fields, bad values, an empty body or a debt left without a name, changing nothing", async () => {
    const debt = await create({ amount: 10, currency: "EUR", lastname: "Stable" });
    const before = await debtRow(debt["id"]);
    for (const [body, details] of [
      [{ status: "status.default.paid" }, { status: "is read-only: the status follows the collection process" }],
      [{ amount: 5 }, { amount: "is read-only: record a credit note to reduce a debt" }],
      [{ currency: "USD" }, { currency: "is read-only: fixed at creation" }],
      [{ credited_invoice_reference: "X" }, { credited_invoice_reference: "is read-only: fixed at creation" }],
      [{ email: "bad" }, { email: "must be a valid e-mail address" }],
      [{ timeline_id: globex.timeline_id }, { timeline_id: "unknown or archived timeline" }],
      [{ timeline_id: "zzz" }, { timeline_id: "unknown or archived timeline" }],
      [{ nickname: "x" }, { nickname: 'unknown field "nickname"' }],
      [{}, { body: "must set at least one field" }],
      [{ lastname: null }, { lastname: "a debtor name is required: lastname, firstname or debtor_company" }],
    ] as const) {
      const response = await update(debt["id"], body);
      expect(response.status).toBe(400);
      expect(await expectContract(response, method, ONE)).toMatchObject({ message: "Validation failed", details });
    }
    const malformed = await update(debt["id"], "{{");
    expect(malformed.status).toBe(400);
    expect(Object.keys((await expectContract(malformed, method, ONE)).details)).toEqual(["body"]);
    await expectError(await update(debt["id"], "x", token, "text/plain"), method, 415, {
      message: "Unsupported media type: expected application/json",
    });
    const huge = await update(debt["id"], { object: "z".repeat(1024 * 1024) });
    expect(huge.status).toBe(413);
    await expectContract(huge, method, ONE);
    expect(await debtRow(debt["id"])).toEqual(before);
  });

  it("answers 404 for another company's, an unknown or an invalid id, and leaves that debt alone", async () => {
    const foreign = await rows.debt(globex, { lastname: "Globex debtor" });
    for (const id of [ids.encode("debt", foreign), ids.encode("debt", 7_777_777), "not-an-id", globex.creditor_id]) {
      await expectError(await update(id, { lastname: "Hijack" }), method, 404, { message: "Debt not found" });
    }
    expect(
      (await t.db.selectFrom("debts").select("lastname").where("id", "=", foreign).executeTakeFirstOrThrow()).lastname,
    ).toBe("Globex debtor");
  });

  it("needs debts:write", async () => {
    const debt = await create({ amount: 10, currency: "EUR", lastname: "Scoped" });
    await expectError(await update(debt["id"], { lastname: "x" }, readOnly), method, 403, {
      message: 'Required scope "debts:write" not found in token',
    });
  });
});

describe("DELETE /debts/{id}", () => {
  it("deletes the debt and its followups, keeps its payments, and updates the creditor's totals", async () => {
    const debt = await create({ amount: 75, currency: "EUR", lastname: "Doomed" });
    const key = ids.decode("debt", debt["id"])!;
    await rows.followup(acme, key);
    await rows.followup(acme, key, { type: "call" });
    await t.db
      .insertInto("payments")
      .values({
        id: crypto.randomUUID(),
        company_id: rows.companyOf(acme),
        debt_id: key,
        provider: "stripe",
        kind: "direct",
        amount_minor: 1_000,
        currency: "EUR",
        status: "succeeded",
        paid_at: t.clock.now(),
      })
      .execute();
    const before = await rowCounts(t.db);
    const creditorBefore = await expectContract(
      await api.get(`/external-api/v1/creditors/${acme.creditor_id}`, token),
      "get",
      "/external-api/v1/creditors/{id}",
    );

    const response = await api.del(one(debt["id"]), token);
    expect(response.status).toBe(200);
    expect(await expectContract(response, "delete", ONE)).toEqual({
      error: false,
      message: "Debt deleted successfully",
    });
    expect(await debtRow(debt["id"])).toBeUndefined();
    expect(await rowCounts(t.db)).toEqual({ ...before, debts: before.debts - 1, followups: before.followups - 2 });
    expect(await t.db.selectFrom("payments").select("debt_id").where("debt_id", "=", key).execute()).toEqual([
      { debt_id: key },
    ]);
    const creditorAfter = await expectContract(
      await api.get(`/external-api/v1/creditors/${acme.creditor_id}`, token),
      "get",
      "/external-api/v1/creditors/{id}",
    );
    expect(creditorAfter.data.data.totalDebts).toBe(creditorBefore.data.data.totalDebts - 1);
    expect(creditorAfter.data.data.totalAmount).toBeCloseTo(creditorBefore.data.data.totalAmount - 75, 6);

    await expectError(await api.del(one(debt["id"]), token), "delete", 404, {
      message: "Debt not found or invalid ID",
    });
  });

  it("answers 403 for a debt managed by a campaign's snapshots, and keeps it", async () => {
    const campaign = await acmeCampaign();
    const managed = await rows.debt(acme, { campaign_id: campaign.id, internal_id: "SNAP-1" });
    await expectError(await api.del(one(ids.encode("debt", managed)), token), "delete", 403, {
      message: "Access denied to this debt",
    });
    expect(await t.db.selectFrom("debts").select("id").where("id", "=", managed).executeTakeFirst()).toEqual({
      id: managed,
    });
  });

  it("answers 404 for another company's, an unknown or an invalid id, and deletes nothing", async () => {
    const foreign = await rows.debt(globex);
    const before = await rowCounts(t.db);
    for (const id of [ids.encode("debt", foreign), ids.encode("debt", 5_555_555), "%20", acme.creditor_id]) {
      await expectError(await api.del(one(id), token), "delete", 404, { message: "Debt not found or invalid ID" });
    }
    expect(await rowCounts(t.db)).toEqual(before);
  });

  it("needs debts:write", async () => {
    const debt = await create({ amount: 1, currency: "EUR", lastname: "Kept" });
    await expectError(await api.del(one(debt["id"]), readOnly), "delete", 403, {
      message: 'Required scope "debts:write" not found in token',
    });
    expect(await debtRow(debt["id"])).toBeDefined();
  });
});

describe("every debt and creditor operation", () => {
  it("answers 401 without a valid token", async () => {
    const debt = ids.encode("debt", await rows.debt(acme));
    const operations = [
      ["post", "/external-api/v1/debts", "/external-api/v1/debts"],
      ["post", "/external-api/v1/debts/batch", "/external-api/v1/debts/batch"],
      ["get", `/external-api/v1/debts/${debt}`, ONE],
      ["put", `/external-api/v1/debts/${debt}`, ONE],
      ["patch", `/external-api/v1/debts/${debt}`, ONE],
      ["delete", `/external-api/v1/debts/${debt}`, ONE],
      ["get", `/external-api/v1/debts/${debt}/payments`, "/external-api/v1/debts/{id}/payments"],
      ["post", "/external-api/v1/creditors", "/external-api/v1/creditors"],
      ["get", `/external-api/v1/creditors/${acme.creditor_id}`, "/external-api/v1/creditors/{id}"],
      ["put", `/external-api/v1/creditors/${acme.creditor_id}`, "/external-api/v1/creditors/{id}"],
      ["patch", `/external-api/v1/creditors/${acme.creditor_id}`, "/external-api/v1/creditors/{id}"],
    ] as const;
    const before = await rowCounts(t.db);
    for (const [method, path, template] of operations) {
      const response = await t.request(path, {
        method: method.toUpperCase(),
        headers: { authorization: "Bearer wrong", "content-type": "application/json" },
        ...(method === "get" || method === "delete" ? {} : { body: "{}" }),
      });
      expect(response.status, `${method} ${path}`).toBe(401);
      expect(await expectContract(response, method, template)).toEqual({
        error: true,
        code: 401,
        message: "Authentication credentials are missing or invalid",
      });
    }
    expect(await rowCounts(t.db)).toEqual(before);
  });

  it("gives a campaign debt a new internal_id only once an apply of its campaign in progress has ended", async () => {
    const campaign = await acmeCampaign();
    const debt = await rows.debt(acme, { campaign_id: campaign.id, internal_id: "CAMP-ACC-1", lastname: "Applied" });
    // The worker holds the campaign's row this way for the whole of an apply.
    let endApply: () => void = () => {};
    const applyEnded = new Promise<void>((resolve) => (endApply = resolve));
    let applyHolds: () => void = () => {};
    const applyHoldsCampaign = new Promise<void>((resolve) => (applyHolds = resolve));
    const apply = t.db.transaction().execute(async (trx) => {
      await trx.selectFrom("campaigns").select("id").where("id", "=", campaign.id).forNoKeyUpdate().execute();
      applyHolds();
      await applyEnded;
    });
    await applyHoldsCampaign;
    let answered = false;
    const renamed = api.patch(one(ids.encode("debt", debt)), token, { internal_id: "CAMP-ACC-1B" }).then((response) => {
      answered = true;
      return response;
    });
    // A contact change does not wait.
    expect((await api.patch(one(ids.encode("debt", debt)), token, { firstname: "Still" })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(answered).toBe(false);
    endApply();
    await apply;
    expect((await renamed).status).toBe(200);
    expect((await debtRow(ids.encode("debt", debt)))?.internal_id).toBe("CAMP-ACC-1B");
  });

  it("reports a campaign debt's taken invoice_reference on invoice_reference", async () => {
    const campaign = await acmeCampaign();
    await rows.debt(acme, { campaign_id: campaign.id, invoice_reference: "CAMP-INV-1", lastname: "One" });
    const other = await rows.debt(acme, { campaign_id: campaign.id, invoice_reference: "CAMP-INV-2", lastname: "Two" });
    const response = await api.patch(one(ids.encode("debt", other)), token, { invoice_reference: "CAMP-INV-1" });
    expect(response.status).toBe(400);
    expect((await expectContract(response, "patch", ONE)).details).toEqual({
      invoice_reference: "is already used by another debt of this campaign",
    });
    expect(
      (await t.db.selectFrom("debts").select("invoice_reference").where("id", "=", other).executeTakeFirstOrThrow())
        .invoice_reference,
    ).toBe("CAMP-INV-2");
  });
});
