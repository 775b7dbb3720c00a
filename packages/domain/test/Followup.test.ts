import { Either, ParseResult, Schema } from "effect";
import { describe, expect, it } from "vitest";
import * as Followup from "../src/Followup.ts";

describe("creditCost", () => {
  it("charges calls 1 credit per started minute, between 1 and 5", () => {
    const costs = [undefined, null, 0, 1, 60_000, 60_001, 120_000, 240_001, 299_999, 300_001, 3_600_000].map(
      (durationMs) => Followup.creditCost({ type: "call", durationMs }),
    );
    expect(costs).toEqual([1, 1, 1, 1, 1, 2, 2, 5, 5, 5, 5]);
    expect(Followup.creditCost({ type: "manual_call", durationMs: 125_000 })).toBe(3);
    expect(Followup.creditCost({ type: "voicemail", durationMs: 30_000 })).toBe(1);
  });

  it("charges SMS per message and WhatsApp 1 or 2 per message", () => {
    expect(Followup.creditCost({ type: "sms" })).toBe(1);
    expect(Followup.creditCost({ type: "sms", messageCount: 3 })).toBe(3);
    expect(Followup.creditCost({ type: "whatsapp" })).toBe(1);
    expect(Followup.creditCost({ type: "whatsapp", hasMedia: true })).toBe(2);
    expect(Followup.creditCost({ type: "whatsapp", hasMedia: true, messageCount: 2 })).toBe(4);
  });

  it("charges nothing for e-mail and paper", () => {
    expect(
      (["email", "physical", "postmail"] as const).map((type) => Followup.creditCost({ type, durationMs: 90_000 })),
    ).toEqual([0, 0, 0]);
  });
});

describe("isExecuted", () => {
  it("is true for carried-out statuses only", () => {
    expect(Followup.statuses.filter(Followup.isExecuted)).toEqual([
      "sent",
      "delivered",
      "deal_found",
      "no_answer",
      "deal_not_found",
      "bad_behavior",
    ]);
  });

  it("makes only executed followups cost credits", () => {
    expect(Followup.chargedCredits({ type: "call", durationMs: 61_000, status: "deal_found" })).toBe(2);
    expect(Followup.chargedCredits({ type: "call", durationMs: 61_000, status: "failed" })).toBe(0);
    expect(Followup.chargedCredits({ type: "sms", status: "scheduled" })).toBe(0);
  });
});

describe("schemas", () => {
  it("defaults to on_hold and lists valid types on a bad type", () => {
    expect(Followup.defaultStatus).toBe("on_hold");
    const result = Schema.decodeUnknownEither(Followup.FollowupType)("fax");
    const issues = Either.isLeft(result) ? ParseResult.ArrayFormatter.formatErrorSync(result.left) : [];
    expect(issues.map(({ path, message }) => ({ path, message }))).toEqual([
      { path: [], message: "must be one of: call, email, sms, whatsapp, voicemail, manual_call, physical, postmail" },
    ]);
    expect(Schema.decodeUnknownEither(Followup.Direction)("inbound")).toEqual(Either.right("inbound"));
    expect(Either.isLeft(Schema.decodeUnknownEither(Followup.FollowupStatus)("done"))).toBe(true);
  });
});
