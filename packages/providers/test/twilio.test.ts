import { describe, expect, it } from "vitest";
import { Twilio } from "../src/index.ts";

// Twilio's published example (webhooks security guide): auth token, URL, POST parameters and the header value.
const token = "12345";
const url = "https://mycompany.com/myapp.php?foo=1&bar=2";
const params: ReadonlyArray<readonly [string, string]> = [
  ["To", "+18005551212"],
  ["Digits", "1234"],
  ["From", "+14158675309"],
  ["Caller", "+14158675309"],
  ["CallSid", "CA1234567890ABCDE"],
];

describe("Twilio signatures", () => {
  it("reproduces Twilio's published example, whatever the parameters' order", () => {
    expect(Twilio.twilioSignature(token, url, params)).toBe("RSOYDt4T1cUTdK1PDd93/VVr8B8=");
    expect(Twilio.verifyTwilioSignature(token, url, params, "RSOYDt4T1cUTdK1PDd93/VVr8B8=")).toBe(true);
  });

  it("refuses a missing, forged or stale signature", () => {
    expect(Twilio.verifyTwilioSignature(token, url, params, undefined)).toBe(false);
    expect(Twilio.verifyTwilioSignature(token, url, params, "RSOYDt4T1cUTdK1PDd93/VVr8B8")).toBe(false);
    expect(Twilio.verifyTwilioSignature("54321", url, params, "RSOYDt4T1cUTdK1PDd93/VVr8B8=")).toBe(false);
    const tampered = params.map(([name, value]) => [name, name === "Digits" ? "9999" : value] as const);
    expect(Twilio.verifyTwilioSignature(token, url, tampered, "RSOYDt4T1cUTdK1PDd93/VVr8B8=")).toBe(false);
    expect(Twilio.verifyTwilioSignature(token, `${url}&baz=3`, params, "RSOYDt4T1cUTdK1PDd93/VVr8B8=")).toBe(false);
  });
});

describe("Twilio callbacks", () => {
  it("maps each documented message status to a delivery update or nothing", () => {
    const status = (MessageStatus: string, extra: Record<string, string> = {}) =>
      Twilio.parseEvent({ kind: "status", params: { MessageSid: "SM1", MessageStatus, ...extra } });
    for (const intermediate of ["accepted", "scheduled", "queued", "sending"])
      expect(status(intermediate)._tag).toBe("Ignored");
    expect(status("sent")).toEqual({
      _tag: "DeliveryUpdate",
      providerMessageId: "SM1",
      status: "sent",
      errorCode: null,
      errorMessage: null,
    });
    expect(status("delivered")).toMatchObject({ status: "delivered" });
    expect(status("read")).toMatchObject({ status: "delivered" });
    expect(status("undelivered", { ErrorCode: "30003", ErrorMessage: "Unreachable destination handset" })).toEqual({
      _tag: "DeliveryUpdate",
      providerMessageId: "SM1",
      status: "failed",
      errorCode: "30003",
      errorMessage: "Unreachable destination handset",
    });
  });

  it("keys a status callback by SID and status, an incoming message by SID", () => {
    const callback = Twilio.receivedCallback("status", [
      ["MessageSid", "SM1"],
      ["MessageStatus", "delivered"],
    ]);
    expect(callback?.eventKey).toBe("status:SM1:delivered");
    expect(Twilio.receivedCallback("inbound", [["MessageSid", "SM2"]])?.eventKey).toBe("inbound:SM2");
    expect(Twilio.receivedCallback("inbound", [["Body", "hi"]])).toBeUndefined();
  });

  it("reads an incoming WhatsApp message without its channel prefix", () => {
    expect(
      Twilio.parseEvent({
        kind: "inbound",
        params: { MessageSid: "SM3", From: "whatsapp:+33612345678", To: "whatsapp:+14155550100", Body: "STOP" },
      }),
    ).toEqual({
      _tag: "InboundMessage",
      channel: "whatsapp",
      from: "+33612345678",
      to: "+14155550100",
      body: "STOP",
      providerMessageId: "SM3",
    });
  });
});

describe("Twilio requests", () => {
  it("builds the documented create-message request", () => {
    const request = Twilio.messageRequest("AC123", {
      channel: "whatsapp",
      to: "+33612345678",
      from: "+14155550100",
      body: "Hello",
      statusCallback: "https://api.example/cb",
    });
    expect(request.path).toBe("/2010-04-01/Accounts/AC123/Messages.json");
    expect(Object.fromEntries(request.form)).toEqual({
      To: "whatsapp:+33612345678",
      From: "whatsapp:+14155550100",
      Body: "Hello",
      StatusCallback: "https://api.example/cb",
    });
    expect(Twilio.basicAuthorization({ accountSid: "AC123", authToken: "tok" })).toBe(
      `Basic ${Buffer.from("AC123:tok").toString("base64")}`,
    );
  });
});
