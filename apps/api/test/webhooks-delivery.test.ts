/**
 * End to end: an endpoint created through the API, an event recorded with
 * its change, the worker process (as deployed) delivering it to a real HTTP
 * receiver that verifies the signature with `standardwebhooks` using the
 * secret the API showed once; then rotation (both signatures during the
 * overlap, only the new one after), replay (same webhook-id), the delivery
 * history, and 410 Gone disabling the endpoint.
 */
import { debtEventData, recordEvent } from "@dc/db";
import { WebhookVerificationError } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { collectionRows } from "./support/collection-rows.ts";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { jsonApi } from "./support/json-api.ts";
import { eventually, expectWebhookPayload, startReceiver, startWorkerProcess, verifyWith } from "./support/webhooks-support.ts";

const t = await startTestApi();
// The worker process runs on the real clock: the api's must agree with it, or
// a rotation's overlap, set from the api's time, would already be over when
// the worker signs (this test failed once the calendar passed TEST_START + 24 h).
t.clock.set(new Date());
const { ids } = t.api.services;
const api = jsonApi(t.request);
const rows = collectionRows(t.db, ids);
const acme = await t.tenant("Acme Collections");
const token = await t.token(acme, "debts:read debts:write");
const companyId = rows.companyOf(acme);
const receiver = await startReceiver();
await startWorkerProcess(t.databaseUrl).ready();

const LIST = "/external-api/v1/webhooks/endpoints";
const endpoint = await (async () => {
  const response = await api.post(LIST, token, { url: receiver.url("/acme"), event_types: ["debt.updated"] });
  return (await expectContract<{ data: { id: string; secret: string } }>(response, "post", LIST)).data;
})();
const debtId = await rows.debt(acme, { lastname: "Martin" });

/** Changes the debt and records `debt.updated` in the same transaction, as the api's handlers will. */
const updateDebt = (lastname: string) =>
  t.db.transaction().execute(async (trx) => {
    await trx.updateTable("debts").set({ lastname, updated_at: t.clock.now() }).where("id", "=", debtId).execute();
    const data = (await debtEventData(trx, ids, companyId, [debtId], { signer: t.linkSigner, now: t.clock.now() })).get(debtId);
    await recordEvent(trx, { companyId, type: "debt.updated", data, occurredAt: t.clock.now() });
  });

const nextRequest = async (count: number) => {
  const request = await eventually(`request ${count}`, () => receiver.requests[count - 1]);
  return request;
};
const signatures = (request: { headers: Record<string, unknown> }) => String(request.headers["webhook-signature"]).split(" ");

describe("webhooks end to end", () => {
  it("delivers an event signed with the secret the API showed once", async () => {
    await updateDebt("Dupont");
    const request = await nextRequest(1);
    const payload = verifyWith(endpoint.secret, request) as { data: { lastname: string; id: string } };
    expectWebhookPayload(payload, "debt.updated");
    expect(payload.data).toMatchObject({ id: ids.encode("debt", debtId), lastname: "Dupont" });
    expect(signatures(request)).toHaveLength(1);

    const history = await eventually("the success to be recorded", async () => {
      const response = await api.get(`${LIST}/${endpoint.id}/deliveries`, token);
      const body = await expectContract<{ data: Array<{ status: string; event_id: string; attempts: Array<{ status_code: number }> }> }>(
        response,
        "get",
        "/external-api/v1/webhooks/endpoints/{id}/deliveries",
      );
      return body.data[0]?.status === "succeeded" ? body.data : undefined;
    });
    expect(history).toMatchObject([{ event_id: request.headers["webhook-id"], event_type: "debt.updated", attempts: [{ status_code: 200 }] }]);
  });

  it("signs with both secrets during a rotation's overlap, and with the new one only after", async () => {
    const rotated = await api.post(`${LIST}/${endpoint.id}/rotate-secret`, token, undefined);
    const { secret } = (await expectContract<{ data: { secret: string } }>(rotated, "post", "/external-api/v1/webhooks/endpoints/{id}/rotate-secret")).data;
    await updateDebt("Durand");
    const during = await nextRequest(2);
    expect(signatures(during)).toHaveLength(2);
    expect(verifyWith(secret, during)).toMatchObject({ data: { lastname: "Durand" } });
    expect(verifyWith(endpoint.secret, during)).toMatchObject({ data: { lastname: "Durand" } });

    // A rotation without overlap ends the previous secret: only the newest signs.
    const again = await api.post(`${LIST}/${endpoint.id}/rotate-secret?overlap_seconds=0`, token, undefined);
    const newest = (await expectContract<{ data: { secret: string } }>(again, "post", "/external-api/v1/webhooks/endpoints/{id}/rotate-secret")).data.secret;
    await updateDebt("Dubois");
    const after = await nextRequest(3);
    expect(signatures(after)).toHaveLength(1);
    expect(verifyWith(newest, after)).toMatchObject({ data: { lastname: "Dubois" } });
    expect(() => verifyWith(secret, after)).toThrow(WebhookVerificationError);
    expect(() => verifyWith(endpoint.secret, after)).toThrow(WebhookVerificationError);
  });

  it("replays an event under its original webhook-id", async () => {
    const first = await nextRequest(1);
    const response = await api.post(`/external-api/v1/webhooks/events/${String(first.headers["webhook-id"])}/replay`, token, undefined);
    expect(response.status).toBe(202);
    const replayed = await nextRequest(4);
    expect(replayed.headers["webhook-id"]).toBe(first.headers["webhook-id"]);
    expect(replayed.body).toBe(first.body);
    expect(Number(replayed.headers["webhook-timestamp"])).toBeGreaterThanOrEqual(Number(first.headers["webhook-timestamp"]));
  });

  it("disables the endpoint when it answers 410 Gone", async () => {
    receiver.answerWith(410);
    await updateDebt("Dumas");
    await nextRequest(5);
    const disabled = await eventually("the endpoint to be disabled", async () => {
      const response = await api.get(`${LIST}/${endpoint.id}`, token);
      const body = await expectContract<{ data: { enabled: boolean; disabled_reason: string | null } }>(response, "get", "/external-api/v1/webhooks/endpoints/{id}");
      return body.data.enabled ? undefined : body.data;
    });
    expect(disabled).toMatchObject({ enabled: false, disabled_reason: "gone" });
    // Four events so far (the replay reused the first delivery); the disabled endpoint gets no fifth.
    await updateDebt("Dupuis");
    expect(await t.db.selectFrom("webhook_deliveries").select("id").where("company_id", "=", companyId).execute()).toHaveLength(4);
    expect(await t.db.selectFrom("webhook_events").select("id").where("company_id", "=", companyId).execute()).toHaveLength(4);
  });
});
