import { Either, Schema } from "effect";
import { describe, expect, it } from "vitest";
import * as DailyWindow from "../src/DailyWindow.ts";

const decode = Schema.decodeUnknownEither(DailyWindow.Window);
const minutesOf = (start: string, end: string) => DailyWindow.toMinutes({ start, end });

describe("toMinutes and contains", () => {
  it("holds the start, not the end, and crosses midnight when the end comes first", () => {
    const day = minutesOf("09:00", "18:00");
    const night = minutesOf("21:00", "08:00");
    const whole = minutesOf("00:00", "24:00");
    if (day === null || night === null || whole === null) throw new Error("valid windows");
    expect([539, 540, 1079, 1080].map((minute) => DailyWindow.contains(day, minute))).toEqual([
      false,
      true,
      true,
      false,
    ]);
    expect([479, 480, 1259, 1260, 0, 1439].map((minute) => DailyWindow.contains(night, minute))).toEqual([
      true,
      false,
      false,
      true,
      true,
      true,
    ]);
    expect([0, 720, 1439].map((minute) => DailyWindow.contains(whole, minute))).toEqual([true, true, true]);
    expect(DailyWindow.crossesMidnight(night)).toBe(true);
    expect(DailyWindow.crossesMidnight(whole)).toBe(false);
  });

  it("holds no minute when start equals end, and refuses what is not a time of day", () => {
    const empty = minutesOf("10:00", "10:00");
    expect(empty === null ? null : [0, 600, 1439].some((minute) => DailyWindow.contains(empty, minute))).toBe(false);
    expect([
      minutesOf("24:00", "08:00"),
      minutesOf("9:00", "18:00"),
      minutesOf("09:60", "18:00"),
      minutesOf("24:01", "08:00"),
    ]).toEqual([null, null, null, null]);
  });
});

describe("Window schema", () => {
  it("accepts a window, and names the field of a bad one", () => {
    expect(Either.isRight(decode({ start: "21:00", end: "08:00" }))).toBe(true);
    expect(Either.isRight(decode({ start: "00:00", end: "24:00" }))).toBe(true);
    const messages = [
      { start: "25:00", end: "08:00" },
      { start: "24:00", end: "08:00" },
      { start: "10:00", end: "10:00" },
    ].map((window) => Either.match(decode(window), { onLeft: (error) => error.message, onRight: () => "accepted" }));
    expect(messages[0]).toContain("must be a time of day HH:MM (00:00 to 24:00)");
    expect(messages[1]).toContain("must be before 24:00");
    expect(messages[2]).toContain("must differ from start");
  });
});
