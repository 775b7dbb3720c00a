import { Either, Schema } from "effect";
import { describe, expect, it } from "vitest";
import * as ComplianceGuard from "../src/ComplianceGuard.ts";
import * as ComplianceSettings from "../src/ComplianceSettings.ts";

const errorOf = <A, I>(schema: Schema.Schema<A, I>, value: unknown): string =>
  Either.match(Schema.decodeUnknownEither(schema)(value), { onLeft: (error) => error.message, onRight: () => "accepted" });

describe("ComplianceSettings", () => {
  it("decodes the default settings into what the guard takes", () => {
    const decoded: ComplianceGuard.Settings = Schema.decodeUnknownSync(ComplianceSettings.Settings)(
      JSON.parse(JSON.stringify(ComplianceGuard.defaultSettings("Europe/Paris"))),
    );
    expect(decoded).toEqual(ComplianceGuard.defaultSettings("Europe/Paris"));
  });

  it("decodes a scheduling with the timeline's zone or the debtor's", () => {
    const scheduling: ComplianceGuard.Scheduling = Schema.decodeUnknownSync(ComplianceSettings.Scheduling)({
      timeZone: null,
      weekdays: [1, 2, 3, 4, 5],
      window: { start: "09:00", end: "18:00" },
    });
    expect(scheduling.timeZone).toBeNull();
    expect(errorOf(ComplianceSettings.Scheduling, { ...scheduling, timeZone: "America/New_York" })).toBe("accepted");
  });

  it("refuses an unknown zone, a weekday outside 1 to 7, no weekday, and a negative cap", () => {
    const scheduling = { timeZone: "Mars/Olympus_Mons", weekdays: [1], window: { start: "09:00", end: "18:00" } };
    expect(errorOf(ComplianceSettings.Scheduling, scheduling)).toContain("must be an IANA time zone such as Europe/Paris");
    expect(errorOf(ComplianceSettings.Scheduling, { ...scheduling, timeZone: null, weekdays: [0] })).toContain("must be an ISO weekday");
    expect(errorOf(ComplianceSettings.Scheduling, { ...scheduling, timeZone: null, weekdays: [] })).toContain("must name at least one weekday");
    expect(errorOf(ComplianceSettings.CapRule, { channel: "sms", max: -1, windowDays: 7 })).toContain("must be 0 or more");
    expect(errorOf(ComplianceSettings.CapRule, { channel: "fax", max: 1, windowDays: 7 })).toContain("must be one of: email, sms");
  });
});
