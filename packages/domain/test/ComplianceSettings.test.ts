import { Either, Schema } from "effect";
import { describe, expect, it } from "vitest";
import * as ComplianceGuard from "../src/ComplianceGuard.ts";
import * as ComplianceSettings from "../src/ComplianceSettings.ts";
import * as TimelineDefinition from "../src/TimelineDefinition.ts";

const decode = Schema.decodeUnknownEither(ComplianceSettings.Overrides);
const errorOf = (value: unknown): string =>
  Either.match(decode(value), { onLeft: (error) => error.message, onRight: () => "accepted" });

describe("ComplianceSettings", () => {
  it("keeps every default for empty overrides", () => {
    expect(
      ComplianceSettings.resolve("Europe/Paris", Schema.decodeUnknownSync(ComplianceSettings.Overrides)({})),
    ).toEqual(ComplianceGuard.defaultSettings("Europe/Paris"));
  });

  it("lays the overrides over the defaults, caps replaced whole", () => {
    const overrides = Schema.decodeUnknownSync(ComplianceSettings.Overrides)({
      quiet_hours: { start: "20:00", end: "09:00" },
      caps: [
        { channel: "sms", max: 3, window_days: 7 },
        { channel: "ai_call", max: 3, window_days: 7, counts: ["ai_call", "manual_call"] },
      ],
      conversation_cooldown_days: 0,
    });
    expect(ComplianceSettings.resolve("America/New_York", overrides)).toEqual({
      ...ComplianceGuard.defaultSettings("America/New_York"),
      quietHours: { start: "20:00", end: "09:00" },
      caps: [
        { channel: "sms", max: 3, windowDays: 7 },
        { channel: "ai_call", max: 3, windowDays: 7, counts: ["ai_call", "manual_call"] },
      ],
      conversationCooldownDays: 0,
    });
  });

  it("refuses a bad window, a negative cap, an unknown channel or key, each named", () => {
    expect(errorOf({ quiet_hours: { start: "21:00", end: "21:00" } })).toContain("must differ from start");
    expect(errorOf({ caps: [{ channel: "sms", max: -1, window_days: 7 }] })).toContain("must be 0 or more");
    expect(errorOf({ caps: [{ channel: "sms", max: 1, window_days: 0 }] })).toContain("must be more than 0");
    expect(errorOf({ paid_channels: ["fax"] })).toContain("must be one of: email, sms");
    expect(errorOf({ quietHours: { start: "20:00", end: "09:00" } })).toContain("quietHours");
  });

  it("reads a timeline's stored scheduling for the guard", () => {
    const stored = Schema.decodeUnknownSync(TimelineDefinition.Scheduling)({
      time_zone: "America/New_York",
      weekdays: [1, 2, 3, 4, 5],
      window: { start: "09:00", end: "18:00" },
    });
    expect(ComplianceSettings.scheduling(stored)).toEqual({
      timeZone: "America/New_York",
      weekdays: [1, 2, 3, 4, 5],
      window: { start: "09:00", end: "18:00" },
    });
  });
});
