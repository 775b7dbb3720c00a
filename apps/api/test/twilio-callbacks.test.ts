import { startFakeTwilio } from "@dc/testing";
import { afterAll, describe, expect, it } from "vitest";
import { startTestApi } from "./support/harness.ts";
import { providerInbox } from "./support/public-requests.ts";

const t = await startTestApi();
const account = { accountSid: "AC00000000000000000000000000000001", authToken: "twilio-test-auth-token" };
const api = await t.startAnotherApi({
  environment: { TWILIO_ACCOUNT_SID: account.accountSid, TWILIO_AUTH_TOKEN: account.authToken },
});
const twilio = await startFakeTwilio(account);
afterAll(async () => {
  await twilio.close();
  await api.stop();
});

const acme = await t.tenant("Acme Collections");
const acmeId = acme.company_id;
const acmeKey = t.api.services.ids.decode("company", acmeId) ?? 0;
const statusUrl = (company: string) => `${api.url}/provider-callbacks/twilio/${company}/status`;
const inboundUrl = `${api.url}/provider-callbacks/twilio/${acmeId}/inbound`;
const delivered = {
  MessageSid: "SM0001",
  MessageStatus: "delivered",
  AccountSid: account.accountSid,
  To: "+33612345678",
};

const { stored, jobs } = providerInbox(t.db, acmeKey);

describe("Twilio callbacks", () => {
  it("refuses an unsigned, forged or tampered callback with 403 and writes nothing", async () => {
    const unsigned = await twilio.post(statusUrl(acmeId), delivered, null);
    expect(unsigned.status).toBe(403);
    expect(await unsigned.json()).toEqual({ error: true, message: "Invalid or missing provider signature", code: 403 });
    expect((await twilio.post(statusUrl(acmeId), delivered, "bm90LXRoZS1zaWduYXR1cmU=")).status).toBe(403);
    // Signed for other parameters (a status changed in flight).
    const signature = twilio.sign(statusUrl(acmeId), delivered);
    expect((await twilio.post(statusUrl(acmeId), { ...delivered, MessageStatus: "failed" }, signature)).status).toBe(
      403,
    );
    expect(await stored()).toEqual([]);
    expect(await jobs()).toBe(0);
  });

  it("stores a signed status callback once, with one job, and answers empty TwiML", async () => {
    const response = await twilio.post(statusUrl(acmeId), delivered);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/xml");
    expect(await response.text()).toContain("<Response/>");
    // Twilio's retry and a replay of the same request store nothing new.
    expect((await twilio.post(statusUrl(acmeId), delivered)).status).toBe(200);
    expect(await stored()).toEqual([
      { provider: "twilio", event_key: "status:SM0001:delivered", payload: { kind: "status", params: delivered } },
    ]);
    expect(await jobs()).toBe(1);
  });

  it("stores an incoming message under its own key", async () => {
    const reply = {
      MessageSid: "SM0002",
      From: "+33612345678",
      To: "+14155550100",
      Body: "STOP",
      AccountSid: account.accountSid,
    };
    expect((await twilio.post(inboundUrl, reply)).status).toBe(200);
    expect((await stored()).map((row) => row.event_key)).toEqual(["status:SM0001:delivered", "inbound:SM0002"]);
  });

  it("answers 404 for a company that does not exist, once the signature holds", async () => {
    const unknown = t.api.services.ids.encode("company", acmeKey + 1000);
    const response = await twilio.post(statusUrl(unknown), delivered);
    expect(response.status).toBe(404);
    expect((await twilio.post(statusUrl("not-an-id"), delivered)).status).toBe(404);
  });

  it("refuses every callback when Twilio is not configured", async () => {
    const response = await twilio.post(`${t.api.url}/provider-callbacks/twilio/${acmeId}/status`, delivered);
    expect(response.status).toBe(403);
  });

  it("refuses a body that is not a form", async () => {
    const response = await fetch(statusUrl(acmeId), {
      method: "POST",
      headers: { "content-type": "application/json", "x-twilio-signature": "x" },
      body: JSON.stringify(delivered),
    });
    expect(response.status).toBe(415);
  });
});
