/**
 * Event payloads: every builder's output is a valid body of its event in the
 * OpenAPI document's `webhooks` section, and uses exactly the shapes and ids
 * the API's own reads return for the same resource.
 */
import { webhookEventTypes as contractEventTypes } from "@dc/contract";
import {
  debtEventData,
  deletedDebtEventData,
  followupEventData,
  paymentEventData,
  paymentPlanReplacedEventData,
  snapshotEventData,
  webhookBody,
  webhookEventTypes,
  type WebhookEventType,
} from "@dc/db";
import { describe, expect, it } from "vitest";
import { collectionRows } from "./support/collection-rows.ts";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { jsonApi } from "./support/json-api.ts";
import { expectWebhookPayload } from "./support/webhooks-support.ts";

const t = await startTestApi();
const { ids } = t.api.services;
const api = jsonApi(t.request);
const rows = collectionRows(t.db, ids);
const acme = await t.tenant("Acme Collections");
const token = await t.token(acme);
const companyId = rows.companyOf(acme);
const now = t.clock.now();

/** The body an endpoint would receive, checked against the document. */
const expectEvent = (type: WebhookEventType, data: unknown) => {
  const body = JSON.parse(webhookBody({ type, data, occurredAt: now })) as unknown;
  expect(body).toEqual({ type, timestamp: now.toISOString(), data });
  expectWebhookPayload(body, type);
};

describe("event types", () => {
  it("are the same in the outbox (db) and in the contract's catalogue", () => {
    expect([...webhookEventTypes]).toEqual([...contractEventTypes]);
  });
});

describe("the payload check", () => {
  it("rejects a body that breaks its event's schema", () => {
    expect(() => expectWebhookPayload({ type: "debt.deleted", timestamp: now.toISOString(), data: { id: 1 } }, "debt.deleted")).toThrow();
    expect(() => expectWebhookPayload({ type: "debt.created", timestamp: now.toISOString(), data: {} }, "debt.deleted")).toThrow();
  });
});

describe("payload builders", () => {
  it("debt.created / updated / settled carry the debt exactly as GET /debts/{id} returns it", async () => {
    const debtorId = await rows.debtor(acme, { firstname: "Claire", debtor_reference: "CUS-1" });
    const debtId = await rows.debt(acme, {
      debtor_id: debtorId,
      firstname: "Claire",
      lastname: "Martin",
      email: "claire@example.com",
      internal_id: "INV-42",
      due_date: "2026-12-01",
      metadata: JSON.stringify({ source: "erp" }),
    });
    const data = (await debtEventData(t.db, ids, companyId, [debtId, 999_999], { signer: t.linkSigner, now })).get(debtId);
    const read = await api.get(`/external-api/v1/debts/${ids.encode("debt", debtId)}`, token);
    const body = await expectContract<{ data: unknown }>(read, "get", "/external-api/v1/debts/{id}");
    expect(data).toEqual(body.data);
    for (const type of ["debt.created", "debt.updated", "debt.settled"] as const) expectEvent(type, data);
    expect((await debtEventData(t.db, ids, companyId + 1_000, [debtId], { signer: t.linkSigner, now })).size).toBe(0);
  });

  it("debt.deleted carries the ids and references the debt had", async () => {
    const debtId = await rows.debt(acme, { internal_id: "INV-7", invoice_reference: "F-7" });
    const data = (await deletedDebtEventData(t.db, ids, companyId, [debtId], now)).get(debtId);
    expect(data).toEqual({
      id: ids.encode("debt", debtId),
      creditor_id: acme.creditor_id,
      internal_id: "INV-7",
      invoice_reference: "F-7",
      debtor_reference: null,
      deleted_at: "2026-11-21T10:00:00+00:00",
    });
    expectEvent("debt.deleted", data);
  });

  it("followup.created / updated carry the followup as GET /followups/{id} returns it, without its one-hour links", async () => {
    const debtId = await rows.debt(acme);
    const followupId = await rows.followup(acme, debtId, {
      type: "call",
      status: "delivered",
      audio_object_key: "https://recordings.example/1.mp3",
      duration_ms: 65_000,
      call_date: now,
    });
    const data = (await followupEventData(t.db, ids, companyId, [followupId])).get(followupId);
    const read = await api.get(`/external-api/v1/followups/${ids.encode("followup", followupId)}`, token);
    const { data: followup } = await expectContract<{ data: Record<string, unknown> }>(read, "get", "/external-api/v1/followups/{id}");
    const { audio_url: audio, pdf_url: pdf, media_urls_expire_at: _expiry, ...rest } = followup;
    expect(audio).toEqual(expect.any(String));
    expect(pdf).toBeNull();
    expect(data).toEqual({ ...rest, has_audio: true, has_pdf: false });
    expectEvent("followup.created", data);
    expectEvent("followup.updated", data);
  });

  it("payment.recorded carries the payment as GET /debts/{id}/payments returns it", async () => {
    const debtId = await rows.debt(acme);
    const [payment] = await t.db
      .insertInto("payments")
      .values({
        id: "8a4a2f3e-52f1-4c5e-9d0b-0e3c2b1a0f99",
        company_id: companyId,
        debt_id: debtId,
        provider: "stripe",
        kind: "direct",
        amount_minor: 2_550,
        currency: "EUR",
        status: "succeeded",
        paid_at: now,
        external_payment_id: "pi_123",
      })
      .returning("id")
      .execute();
    const data = (await paymentEventData(t.db, ids, companyId, [payment!.id])).get(payment!.id);
    const read = await api.get(`/external-api/v1/debts/${ids.encode("debt", debtId)}/payments`, token);
    const body = await expectContract<{ data: unknown[] }>(read, "get", "/external-api/v1/debts/{id}/payments");
    expect(body.data).toEqual([data]);
    expectEvent("payment.recorded", data);
  });

  it("payment_plan.replaced carries the new plan with its installments and the replaced plan's id", async () => {
    const debtId = await rows.debt(acme);
    const old = await rows.paymentPlan(acme, debtId, { status: "replaced", external_reference: "PLAN-1" }, []);
    const plan = await rows.paymentPlan(acme, debtId, { external_reference: "PLAN-2", source: "snapshot", start_date: "2026-12-01" }, [
      { payment_date: "2026-12-01", status: "pending" },
      { payment_date: "2027-01-01", status: "pending" },
    ]);
    const [data, cancelled] = await paymentPlanReplacedEventData(t.db, ids, companyId, [
      { debtId, planId: plan, replacedPlanId: old },
      { debtId, planId: null, replacedPlanId: plan },
    ]);
    expect(data).toMatchObject({
      debt_id: ids.encode("debt", debtId),
      replaced_payment_plan_id: ids.encode("payment_plan", old),
      payment_plan: {
        id: ids.encode("payment_plan", plan),
        external_reference: "PLAN-2",
        status: "active",
        start_date: "2026-12-01",
        source: "snapshot",
        currency: "EUR",
        installments: [
          { amount: 10, payment_date: "2026-12-01", status: "pending", paid_at: null },
          { amount: 10, payment_date: "2027-01-01", status: "pending", paid_at: null },
        ],
      },
    });
    expect(cancelled).toEqual({ debt_id: ids.encode("debt", debtId), payment_plan: null, replaced_payment_plan_id: ids.encode("payment_plan", plan) });
    expectEvent("payment_plan.replaced", data);
    expectEvent("payment_plan.replaced", cancelled);
  });

  it("snapshot.completed / failed carry the acknowledgement as the status resource returns it", async () => {
    const campaign = await t.db
      .selectFrom("campaigns")
      .select("id")
      .where("api_reference", "=", acme.campaign_api_reference)
      .executeTakeFirstOrThrow();
    const counts = { rows: 2, created: 1, updated: 1, unchanged: 0, settled: 0, plans_replaced: 0, plans_kept: 0, payments: 1, skipped_zero_balance: 0, warnings: 0 };
    const snapshot = await t.db
      .insertInto("snapshots")
      .values({
        company_id: companyId,
        campaign_id: campaign.id,
        snapshot_reference: "export-0001",
        delivery_mode: "one_request",
        status: "completed",
        expected_row_count: 2,
        received_row_count: 2,
        received_chunk_count: 1,
        next_chunk_index: 1,
        core_applied: true,
        counts: JSON.stringify(counts),
        warnings: JSON.stringify([]),
        created_at: now,
        updated_at: now,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    const data = await snapshotEventData(t.db, companyId, snapshot.id);
    const path = `/external-api/v1/campaigns/${acme.campaign_api_reference}/snapshots/export-0001`;
    const read = await api.get(path, token);
    const body = await expectContract<{ data: unknown }>(read, "get", "/external-api/v1/campaigns/{apiReference}/snapshots/{snapshotReference}");
    expect(data).toEqual(body.data);
    expectEvent("snapshot.completed", data);

    const failure = { code: "processing_error", message: "The snapshot could not be processed.", errors: [], error_count: 0, errors_omitted: 0 };
    await t.db.updateTable("snapshots").set({ status: "failed", failure: JSON.stringify(failure), counts: null }).where("id", "=", snapshot.id).execute();
    const failed = await snapshotEventData(t.db, companyId, snapshot.id);
    expect(failed).toMatchObject({ status: "failed", failure, counts: null });
    expect(failed).not.toHaveProperty("warnings");
    expectEvent("snapshot.failed", failed);
    expect(await snapshotEventData(t.db, companyId + 1_000, snapshot.id)).toBeUndefined();
  });
});
