// Properties of the compliance guard, checked against an oracle that reads each zone's wall clock
// with Intl.DateTimeFormat's own fields (not the offsets the guard computes), minute by minute.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as Channel from "../src/Channel.ts";
import * as ComplianceGuard from "../src/ComplianceGuard.ts";
import * as DebtorTimeZone from "../src/DebtorTimeZone.ts";

const minuteMs = 60_000;
const hourMs = 3_600_000;
const dayMs = 86_400_000;

/** Zones with daylight-saving changes north and south, 30 and 45-minute offsets, a 30-minute change, and +14. */
const zonePool = [
  "Europe/Paris",
  "America/New_York",
  "Pacific/Kiritimati",
  "Asia/Kathmandu",
  "Asia/Kolkata",
  "Australia/Lord_Howe",
  "Pacific/Chatham",
  "America/St_Johns",
  "Australia/Adelaide",
  "Pacific/Honolulu",
  "America/Santiago",
  "Africa/Casablanca",
  "Asia/Tehran",
  "UTC",
];

/** Daylight-saving changes of 2026 in the pool's zones. */
const transitions = [
  "2026-03-08T07:00:00Z",
  "2026-03-29T01:00:00Z",
  "2026-04-04T15:00:00Z",
  "2026-04-05T14:00:00Z",
  "2026-04-05T03:00:00Z",
  "2026-09-06T04:00:00Z",
  "2026-09-27T14:00:00Z",
  "2026-10-03T15:30:00Z",
  "2026-10-25T01:00:00Z",
  "2026-11-01T06:00:00Z",
].map((iso) => Date.parse(iso));

const debtors: ReadonlyArray<ComplianceGuard.Debtor> = [
  { country: "FR", postalCode: "75011", phone: "+33612345678", email: "a@example.fr" },
  { country: "FR", postalCode: "97200", phone: "+596696123456", email: "b@example.fr" },
  { country: "US", postalCode: "96813", phone: "+18085550123", email: "c@example.com" },
  { country: "NP", postalCode: null, phone: "+9779812345678", email: "d@example.com" },
  { country: "IN", postalCode: null, phone: "+919812345678", email: "e@example.com" },
  { country: "KI", postalCode: null, phone: null, email: "f@example.com" },
  { country: "AU", postalCode: "2898", phone: "+61412345678", email: "g@example.com" },
  { country: "CA", postalCode: "A1C 5M2", phone: "+17095550123", email: "h@example.com" },
  { country: "NZ", postalCode: null, phone: "+64211234567", email: "i@example.com" },
  { country: null, postalCode: null, phone: null, email: "j@example.com" },
];

const format = (minute: number): string =>
  `${String(Math.floor(minute / 60)).padStart(2, "0")}:${String(minute % 60).padStart(2, "0")}`;
const parse = (text: string): number => Number(text.slice(0, 2)) * 60 + Number(text.slice(3, 5));

const windowArbitrary: fc.Arbitrary<ComplianceGuard.Window> = fc
  .record({ start: fc.integer({ min: 0, max: 1439 }), end: fc.integer({ min: 0, max: 1440 }) })
  .filter(({ start, end }) => start !== end)
  .map(({ start, end }) => ({ start: format(start), end: format(end) }));

const instantArbitrary = fc.oneof(
  fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2037, 0, 1) }),
  fc
    .tuple(fc.constantFrom(...transitions), fc.integer({ min: -3 * dayMs, max: 3 * dayMs }))
    .map(([base, shift]) => base + shift),
);

const schedulingArbitrary: fc.Arbitrary<ComplianceGuard.Scheduling> = fc.record({
  timeZone: fc.option(fc.constantFrom(...zonePool), { nil: null }),
  weekdays: fc.subarray([1, 2, 3, 4, 5, 6, 7], { minLength: 1 }),
  window: fc.oneof(windowArbitrary, fc.constant({ start: "09:00", end: "18:00" })),
});

const settingsArbitrary: fc.Arbitrary<ComplianceGuard.Settings> = fc.record({
  companyTimeZone: fc.constantFrom(...zonePool),
  quietHours: fc.oneof(fc.constant({ start: "21:00", end: "08:00" }), windowArbitrary),
  caps: fc.oneof(
    fc.constant(ComplianceGuard.defaultSettings("UTC").caps),
    fc.array(
      fc.record({
        channel: fc.constantFrom(...Channel.channels),
        max: fc.integer({ min: 0, max: 4 }),
        windowDays: fc.integer({ min: 1, max: 7 }),
        counts: fc.subarray([...Channel.channels], { minLength: 1 }),
      }),
      { maxLength: 3 },
    ),
  ),
  conversationCooldownDays: fc.integer({ min: 0, max: 7 }),
  paidChannels: fc.constant(Channel.paidChannels),
});

const debtorArbitrary = fc
  .tuple(fc.constantFrom(...debtors), fc.option(windowArbitrary, { nil: undefined }))
  .map(([debtor, quietHours]): ComplianceGuard.Debtor =>
    quietHours === undefined ? debtor : { ...debtor, quietHours },
  );

/** Inputs of every kind: most are deferred or blocked for some reason. */
const anyInput: fc.Arbitrary<ComplianceGuard.Input> = instantArbitrary.chain((now) =>
  fc.record({
    now: fc.constant(new Date(now)),
    channel: fc.constantFrom(...Channel.channels.filter((channel) => channel !== "postmail")),
    debtor: debtorArbitrary,
    scheduling: schedulingArbitrary,
    settings: settingsArbitrary,
    history: fc.array(
      fc.record({
        channel: fc.constantFrom(...Channel.channels),
        at: fc.integer({ min: 0, max: 10 * dayMs }).map((ago) => new Date(now - ago)),
        conversation: fc.boolean(),
      }),
      { maxLength: 12 },
    ),
    optOuts: fc.subarray([...Channel.channels], { maxLength: 1 }),
    holds: fc.array(
      fc.record({
        kind: fc.constantFrom("dispute", "hardship", "payment_plan", "promise_to_pay", "paused", "ai_dispute"),
        until: fc.option(
          fc.integer({ min: -2 * dayMs, max: 5 * dayMs }).map((shift) => new Date(now + shift)),
          { nil: null },
        ),
      }),
      { maxLength: 1 },
    ),
    credits: fc.integer({ min: -1, max: 3 }),
  }),
);

/** Inputs with nothing but the time rules and the caps in the way, and wide windows: often allowed. */
const permissiveInput: fc.Arbitrary<ComplianceGuard.Input> = fc
  .record({
    input: anyInput,
    window: fc.constantFrom(
      { start: "00:00", end: "24:00" },
      { start: "07:00", end: "22:00" },
      { start: "20:00", end: "10:00" },
    ),
    weekdays: fc.constantFrom([1, 2, 3, 4, 5, 6, 7], [1, 2, 3, 4, 5]),
  })
  .map(({ input, window, weekdays }) => ({
    ...input,
    scheduling: { ...input.scheduling, window, weekdays },
    optOuts: [],
    holds: [],
    credits: 10,
    history: input.history.map((contact) => ({ ...contact, conversation: false })),
  }));

/** Permissive inputs whose history fills caps of the action's channel: the caps decide. */
const cappedInput: fc.Arbitrary<ComplianceGuard.Input> = fc
  .record({
    input: permissiveInput,
    caps: fc.array(fc.record({ max: fc.integer({ min: 1, max: 5 }), windowDays: fc.integer({ min: 1, max: 7 }) }), {
      minLength: 1,
      maxLength: 2,
    }),
    ago: fc.array(fc.integer({ min: 0, max: 8 * dayMs }), { minLength: 2, maxLength: 10 }),
  })
  .map(({ input, caps, ago }) => ({
    ...input,
    settings: { ...input.settings, caps: caps.map((cap) => ({ ...cap, channel: input.channel })) },
    history: ago.map((shift) => ({
      channel: input.channel,
      at: new Date(input.now.getTime() - shift),
      conversation: false,
    })),
  }));

const inputArbitrary = fc.oneof(anyInput, permissiveInput, cappedInput);

const clocks = new Map<string, Intl.DateTimeFormat>();
const readings = new Map<string, { minute: number; weekday: number }>();
const weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
const blockMs = 15 * minuteMs;

/**
 * The wall clock of `zone` at `instant`: minute of the day and ISO weekday, read from Intl's own fields.
 * Every offset of the pool's zones since 2000 is a multiple of 15 minutes and changes on a quarter hour, so
 * one reading per quarter hour, plus the minutes into it, is the reading of every instant in it.
 */
const wallClock = (zone: string, instant: number): { minute: number; weekday: number } => {
  const block = Math.floor(instant / blockMs) * blockMs;
  const key = `${zone} ${block}`;
  let reading = readings.get(key);
  if (reading === undefined) {
    let clock = clocks.get(zone);
    if (clock === undefined) {
      clock = new Intl.DateTimeFormat("en-US", {
        timeZone: zone,
        hourCycle: "h23",
        weekday: "short",
        hour: "2-digit",
        minute: "2-digit",
      });
      clocks.set(zone, clock);
    }
    const parts = Object.fromEntries(clock.formatToParts(new Date(block)).map((part) => [part.type, part.value]));
    reading = {
      minute: Number(parts["hour"]) * 60 + Number(parts["minute"]),
      weekday: weekdayNames.indexOf(parts["weekday"] ?? "") + 1,
    };
    if (readings.size > 200_000) readings.clear();
    readings.set(key, reading);
  }
  return { minute: reading.minute + Math.floor((instant - block) / minuteMs), weekday: reading.weekday };
};

const inWindow = (window: ComplianceGuard.Window, minute: number): boolean => {
  const start = parse(window.start);
  const end = parse(window.end);
  return start < end ? minute >= start && minute < end : start > end && (minute >= start || minute < end);
};

/** The time rules, as the decision page states them. */
const allowedByTime = (
  instant: number,
  zones: ReadonlyArray<string>,
  scheduling: ComplianceGuard.Scheduling,
  settings: ComplianceGuard.Settings,
  debtor: ComplianceGuard.Debtor,
): boolean => {
  for (const zone of zones) {
    const { minute } = wallClock(zone, instant);
    if (
      inWindow(settings.quietHours, minute) ||
      (debtor.quietHours !== undefined && inWindow(debtor.quietHours, minute))
    )
      return false;
  }
  const start = parse(scheduling.window.start);
  const end = parse(scheduling.window.end);
  for (const zone of scheduling.timeZone === null ? zones : [scheduling.timeZone]) {
    const { minute, weekday } = wallClock(zone, instant);
    const windowDay = end < start && minute < end ? ((weekday + 5) % 7) + 1 : weekday;
    if (!scheduling.weekdays.includes(windowDay) || !inWindow(scheduling.window, minute)) return false;
  }
  return true;
};

describe("decide", () => {
  it("never allows an instant outside the window, the weekdays or inside quiet hours in any candidate zone, nor over a cap", () => {
    let allowed = 0;
    fc.assert(
      fc.property(inputArbitrary, (input) => {
        const decision = ComplianceGuard.decide(input);
        if (decision._tag !== "allow") return;
        allowed += 1;
        const zones = DebtorTimeZone.candidates(input.debtor, input.settings.companyTimeZone);
        expect(allowedByTime(input.now.getTime(), zones, input.scheduling, input.settings, input.debtor)).toBe(true);
        for (const cap of input.settings.caps.filter((rule) => rule.channel === input.channel)) {
          expect(ComplianceGuard.countedAttempts(cap, input.history, input.now).length).toBeLessThan(cap.max);
        }
        expect(input.optOuts).not.toContain(input.channel);
        expect(input.holds.filter((hold) => hold.until === null || hold.until > input.now)).toEqual([]);
        if (input.settings.paidChannels.includes(input.channel)) expect(input.credits).toBeGreaterThan(0);
        if (Channel.isCall(input.channel)) {
          const since = input.now.getTime() - input.settings.conversationCooldownDays * dayMs;
          expect(
            input.history.filter(
              (contact) => contact.conversation && Channel.isCall(contact.channel) && contact.at.getTime() > since,
            ),
          ).toEqual([]);
        }
      }),
      { numRuns: 400 },
    );
    // The property says something only if allows happen.
    expect(allowed).toBeGreaterThan(10);
  });

  it("allows, at the instant it deferred to, the same action with the same history", () => {
    fc.assert(
      fc.property(inputArbitrary, (input) => {
        const decision = ComplianceGuard.decide(input);
        if (decision._tag !== "defer" || decision.until === null) return;
        expect(decision.until.getTime()).toBeGreaterThan(input.now.getTime());
        expect(ComplianceGuard.decide({ ...input, now: decision.until })).toEqual({ _tag: "allow" });
      }),
      { numRuns: 300 },
    );
  });
});

describe("nextAllowedInstant", () => {
  /** How far after `from` every minute is checked against the oracle. */
  const checkedMs = 30 * hourMs;

  it("is the first allowed instant at or after from: allowed itself, and no allowed minute before it", () => {
    fc.assert(
      fc.property(
        instantArbitrary,
        fc.uniqueArray(fc.constantFrom(...zonePool), { minLength: 1, maxLength: 3 }),
        schedulingArbitrary,
        settingsArbitrary,
        debtorArbitrary,
        (from, zones, scheduling, settings, debtor) => {
          const next =
            ComplianceGuard.nextAllowedInstant(new Date(from), zones, scheduling, settings, debtor)?.getTime() ?? null;
          const allowed = (instant: number) => allowedByTime(instant, zones, scheduling, settings, debtor);
          if (next !== null) {
            expect(next).toBeGreaterThanOrEqual(from);
            expect(allowed(next)).toBe(true);
            if (next > from) expect(allowed(from)).toBe(false);
          }
          const end = Math.min(next ?? Infinity, from + checkedMs);
          for (let minute = Math.floor(from / minuteMs + 1) * minuteMs; minute < end; minute += minuteMs) {
            if (allowed(minute)) expect({ from: new Date(from), next, allowedEarlier: new Date(minute) }).toBeNull();
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
