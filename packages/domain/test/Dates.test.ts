import { describe, expect, it } from "vitest";
import * as Dates from "../src/Dates.ts";

describe("isCalendarDate", () => {
  it("accepts real days only, leap years included", () => {
    const dates = [
      "2024-02-29",
      "2000-02-29",
      "1900-02-29",
      "2023-02-29",
      "2024-04-31",
      "2024-12-31",
      "2024-13-01",
      "2024-00-10",
    ];
    expect(dates.map(Dates.isCalendarDate)).toEqual([true, true, false, false, false, true, false, false]);
    expect(["2024-1-01", "20240101", "2024-01-01T00:00:00Z", ""].map(Dates.isCalendarDate)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});

describe("isIsoDateTime", () => {
  it("requires an offset or Z and valid clock values", () => {
    const valid = [
      "2024-05-01T10:00:00Z",
      "2024-05-01T10:00:00+02:00",
      "2024-05-01T23:59:59.123456789-11:30",
      "2024-05-01T10:00Z",
    ];
    const invalid = [
      "2024-05-01T10:00:00",
      "2024-05-01 10:00:00Z",
      "2024-05-01T24:00:00Z",
      "2024-05-01T10:60:00Z",
      "2024-05-01T10:00:60Z",
      "2024-05-01T10:00:00+24:00",
      "2024-02-30T10:00:00Z",
      "2024-05-01T10:00:00.Z",
    ];
    expect(valid.map(Dates.isIsoDateTime)).toEqual([true, true, true, true]);
    expect(invalid.map(Dates.isIsoDateTime)).toEqual(invalid.map(() => false));
  });
});

describe("isWritableDate and isWritableDateTime", () => {
  it("keep dates from 0001-01-01 and instants in UTC years 0001 to 9999, whatever the offset", () => {
    expect(["0001-01-01", "9999-12-31", "0000-12-31", "2024-02-30"].map(Dates.isWritableDate)).toEqual([
      true,
      true,
      false,
      false,
    ]);
    const instants = [
      "0001-01-01T00:30:00Z",
      "0001-01-01T00:30:00-01:00",
      "0001-01-01T00:30:00+01:00",
      "9999-12-31T23:30:00+01:00",
      "9999-12-31T23:30:00-01:00",
      "0099-06-01T12:00:00Z",
      "2024-05-01T10:00:00+24:00",
    ];
    expect(instants.map(Dates.isWritableDateTime)).toEqual([true, true, false, true, false, true, false]);
  });
});

describe("formatIsoOffset", () => {
  it("writes an instant in UTC with +00:00 and a four-digit year", () => {
    expect(Dates.formatIsoOffset(new Date("2026-11-21T16:03:18.999+02:00"))).toBe("2026-11-21T14:03:18+00:00");
    expect(Dates.formatIsoOffset(new Date("0999-06-01T12:00:00Z"))).toBe("0999-06-01T12:00:00+00:00");
    expect(Dates.formatIsoOffset(new Date("0001-01-01T00:00:00Z"))).toBe("0001-01-01T00:00:00+00:00");
  });

  it("tells the years the platform stores and writes back: 0001 to 9999", () => {
    expect(Dates.inWritableYears(new Date("0001-01-01T00:00:00Z"))).toBe(true);
    expect(Dates.inWritableYears(new Date("9999-12-31T23:59:59Z"))).toBe(true);
    expect(Dates.inWritableYears(new Date("0000-12-31T23:59:59Z"))).toBe(false);
    expect(Dates.inWritableYears(new Date("+010000-01-01T00:00:00Z"))).toBe(false);
  });
});
