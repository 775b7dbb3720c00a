import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as Subscription from "../src/Subscription.ts";

const at = (iso: string): Date => new Date(iso);
const iso = (date: Date): string => date.toISOString();

describe("addMonths", () => {
  it("keeps the day and time, clamping a day the month lacks to its last day", () => {
    const anchor = at("2024-01-31T10:15:30.250Z");
    expect([1, 2, 3, 13, -1].map((months) => iso(Subscription.addMonths(anchor, months)))).toEqual([
      "2024-02-29T10:15:30.250Z",
      "2024-03-31T10:15:30.250Z",
      "2024-04-30T10:15:30.250Z",
      "2025-02-28T10:15:30.250Z",
      "2023-12-31T10:15:30.250Z",
    ]);
  });
});

describe("periodEnd", () => {
  it("is the first monthly anniversary of the anchor strictly after now", () => {
    const anchor = at("2026-01-31T10:00:00Z");
    expect(
      [
        "2026-01-31T10:00:00Z",
        "2026-02-10T00:00:00Z",
        "2026-02-28T09:59:59.999Z",
        "2026-02-28T10:00:00Z",
        "2026-03-31T10:00:01Z",
        "2027-12-31T09:00:00Z",
      ].map((now) => iso(Subscription.periodEnd(anchor, at(now)))),
    ).toEqual([
      "2026-02-28T10:00:00.000Z",
      "2026-02-28T10:00:00.000Z",
      "2026-02-28T10:00:00.000Z",
      "2026-03-31T10:00:00.000Z",
      "2026-04-30T10:00:00.000Z",
      "2027-12-31T10:00:00.000Z",
    ]);
  });

  it("ends within a month after now, on an anniversary, with the one before it at or before now", () => {
    const instant = fc.date({ min: at("2000-01-01T00:00:00Z"), max: at("2100-01-01T00:00:00Z"), noInvalidDate: true });
    fc.assert(
      fc.property(instant, fc.integer({ min: 0, max: 40 * 366 * 24 * 3600 * 1000 }), (anchor, later) => {
        const now = new Date(anchor.getTime() + later);
        const end = Subscription.periodEnd(anchor, now);
        expect(end.getTime()).toBeGreaterThan(now.getTime());
        const months =
          (end.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + (end.getUTCMonth() - anchor.getUTCMonth());
        expect(months).toBeGreaterThanOrEqual(1);
        expect(Subscription.addMonths(anchor, months).getTime()).toBe(end.getTime());
        if (months > 1) expect(Subscription.addMonths(anchor, months - 1).getTime()).toBeLessThanOrEqual(now.getTime());
      }),
    );
  });
});
