import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Lob, parseProviderEvent } from "../src/index.ts";

const secret = "lob_webhook_secret_for_tests";
const now = new Date("2030-01-08T09:00:00Z");
const body = Buffer.from(
  JSON.stringify({ id: "evt_1", event_type: { id: "letter.delivered" }, body: { id: "ltr_1" } }),
);
const sign = (timestamp: string, bytes: Uint8Array = body) =>
  createHmac("sha256", secret)
    .update(`${timestamp}.${Buffer.from(bytes).toString("utf8")}`)
    .digest("hex");

describe("Lob's webhook signature", () => {
  it("accepts Lob's signature of a recent timestamp, in milliseconds or seconds", () => {
    const ms = String(now.getTime() - 60_000);
    expect(Lob.verifyLobSignature(secret, { signature: sign(ms), timestamp: ms }, body, now)).toBe("valid");
    const seconds = String(now.getTime() / 1000 + 60);
    expect(Lob.verifyLobSignature(secret, { signature: sign(seconds), timestamp: seconds }, body, now)).toBe("valid");
  });

  it("refuses a missing, wrong or malformed signature, and calls an old or future one stale", () => {
    const ms = String(now.getTime());
    expect(Lob.verifyLobSignature(secret, { signature: undefined, timestamp: ms }, body, now)).toBe("invalid");
    expect(Lob.verifyLobSignature(secret, { signature: sign(ms), timestamp: undefined }, body, now)).toBe("invalid");
    expect(Lob.verifyLobSignature(secret, { signature: "zz", timestamp: ms }, body, now)).toBe("invalid");
    expect(
      Lob.verifyLobSignature(secret, { signature: sign(ms), timestamp: String(now.getTime() + 1) }, body, now),
    ).toBe("invalid");
    expect(
      Lob.verifyLobSignature(secret, { signature: sign(ms), timestamp: ms }, Buffer.from(`${body.toString()} `), now),
    ).toBe("invalid");
    for (const offset of [-5 * 60_000 - 1, 5 * 60_000 + 1]) {
      const at = String(now.getTime() + offset);
      expect(Lob.verifyLobSignature(secret, { signature: sign(at), timestamp: at }, body, now)).toBe("stale");
    }
  });
});

describe("Lob's letter events", () => {
  const event = (type: string, metadata: Record<string, string> = { dc_company: "co_1" }) => ({
    id: "evt_9",
    body: { id: "ltr_9", object: "letter", metadata },
    reference_id: "ltr_9",
    event_type: { id: type, enabled_for_test: true, resource: "letters", object: "event_type" },
    object: "event",
  });

  it("are stored by event id with the company our metadata names", () => {
    expect(Lob.receivedCallback(event("letter.delivered"))).toEqual({
      eventKey: "evt_9",
      payload: event("letter.delivered"),
      companyPublicId: "co_1",
    });
    expect(Lob.receivedCallback(event("letter.delivered", {}))?.companyPublicId).toBeNull();
    expect(Lob.receivedCallback({ not: "an event" })).toBeUndefined();
  });

  it("settle a letter on delivery or return, and leave it on tracking steps", () => {
    expect(parseProviderEvent("lob", event("letter.delivered"))).toEqual({
      _tag: "DeliveryUpdate",
      providerMessageId: "ltr_9",
      status: "delivered",
      errorCode: null,
      errorMessage: null,
    });
    expect(parseProviderEvent("lob", event("letter.returned_to_sender"))).toEqual({
      _tag: "DeliveryUpdate",
      providerMessageId: "ltr_9",
      status: "failed",
      errorCode: "letter.returned_to_sender",
      errorMessage: "returned to sender",
    });
    for (const type of ["letter.created", "letter.rendered_pdf", "letter.in_transit", "letter.mailed"])
      expect(parseProviderEvent("lob", event(type))).toMatchObject({ _tag: "Ignored" });
  });
});
