/**
 * Retell's webhook route over HTTP (docs/decisions/0640): a fake Retell on
 * a real socket signs its webhooks with Retell's own SDK; the api verifies
 * them against `RETELL_API_KEY` within 5 minutes of its clock, stores each
 * call event once with the company's provider-events job, and refuses an
 * unsigned, forged, tampered, stale or misaddressed one with 403, writing
 * nothing.
 */
import { Retell } from "@dc/providers";
import { startFakeRetell } from "@dc/testing";
import { afterAll, describe, expect, it } from "vitest";
import { startTestApi, TEST_START } from "./support/harness.ts";
import { placeRetellCall, providerInbox, retellWebhookUrl } from "./support/public-requests.ts";

const t = await startTestApi();
const retell = await startFakeRetell();
const api = await t.startAnotherApi({ environment: { RETELL_API_KEY: retell.apiKey } });
afterAll(async () => {
  await retell.close();
  await api.stop();
});

const acme = await t.tenant("Acme Collections");
const other = await t.tenant("Other Collections");
const acmeKey = t.api.services.ids.decode("company", acme.company_id) ?? 0;
const webhookUrl = (company: string) => retellWebhookUrl(api.url, company);
const now = TEST_START.getTime();

/** A call placed through the fake, as the worker places it: our webhook URL and metadata. */
const placeCall = (company: string, url = webhookUrl(company)): Promise<string> => placeRetellCall(retell, company, url);

const { stored, jobs } = providerInbox(t.db, acmeKey);

describe("Retell webhooks", () => {
  it("refuses an unsigned, forged, tampered, stale or misaddressed webhook with 403 and writes nothing", async () => {
    const callId = await placeCall(acme.company_id);
    const { url, rawBody, signature } = await retell.webhook(callId, "call_started", now);
    const unsigned = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: rawBody,
    });
    expect(unsigned.status).toBe(403);
    expect(await unsigned.json()).toEqual({ error: true, message: "Invalid or missing provider signature", code: 403 });
    expect(await retell.post(url, rawBody, Retell.retellSignature("another-key-123", rawBody, now))).toBe(403);
    expect(await retell.post(url, rawBody.replace("call_started", "call_ended"), signature)).toBe(403);
    const stale = await retell.webhook(callId, "call_started", now - 6 * 60_000);
    expect(await retell.post(url, stale.rawBody, stale.signature)).toBe(403);
    // Signed by Retell for Acme's call, posted to another company's URL.
    expect(await retell.post(webhookUrl(other.company_id), rawBody, signature)).toBe(403);
    expect(await stored()).toEqual([]);
    expect(await jobs()).toBe(0);
  });

  it("stores each signed event of a call once, with one job, and answers 204", async () => {
    const callId = await placeCall(acme.company_id);
    retell.start(callId);
    expect((await retell.deliver(callId, "call_started", now)).status).toBe(204);
    retell.end(callId, { disconnection_reason: "dial_no_answer", duration_ms: 0 });
    const ended = await retell.deliver(callId, "call_ended", now + 1000);
    expect(ended.status).toBe(204);
    // Retell's retry, and a replay within the 5 minutes: stored already.
    expect((await retell.deliver(callId, "call_ended", now + 2000)).status).toBe(204);
    expect(await retell.post(webhookUrl(acme.company_id), ended.rawBody, ended.signature)).toBe(204);
    expect((await stored()).map((row) => row.event_key)).toEqual([`${callId}:call_started`, `${callId}:call_ended`]);
    expect(await jobs()).toBe(1);
  });

  it("answers 404 for a company that does not exist and 415 for a body that is not JSON", async () => {
    const missing = "cmp_does_not_exist";
    const callId = await placeCall(missing);
    expect((await retell.deliver(callId, "call_started", now)).status).toBe(404);
    const response = await fetch(webhookUrl(acme.company_id), {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "event=call_started",
    });
    expect(response.status).toBe(415);
  });
});
