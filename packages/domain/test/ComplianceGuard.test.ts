import { describe, expect, it } from "vitest";
import * as ComplianceGuard from "../src/ComplianceGuard.ts";

const at = (iso: string): Date => new Date(iso);
const paris: ComplianceGuard.Debtor = {
  country: "FR",
  postalCode: "75011",
  phone: "+33612345678",
  email: "jean@example.fr",
};
const weekdays: ComplianceGuard.Scheduling = {
  timeZone: null,
  weekdays: [1, 2, 3, 4, 5],
  window: { start: "09:00", end: "18:00" },
};
const everyDay = (start: string, end: string, timeZone: string | null = null): ComplianceGuard.Scheduling => ({
  timeZone,
  weekdays: [1, 2, 3, 4, 5, 6, 7],
  window: { start, end },
});

/** Monday 2 March 2026, 10:00 in Paris (UTC+1): inside every default rule. */
const monday = "2026-03-02T09:00:00Z";

const input = (overrides: Partial<ComplianceGuard.Input> = {}): ComplianceGuard.Input => ({
  now: at(monday),
  channel: "ai_call",
  debtor: paris,
  scheduling: weekdays,
  settings: ComplianceGuard.defaultSettings("Europe/Paris"),
  history: [],
  optOuts: [],
  holds: [],
  credits: 100,
  ...overrides,
});

const decide = (overrides: Partial<ComplianceGuard.Input> = {}) => ComplianceGuard.decide(input(overrides));
/** The decision without its detail text. */
const outcome = (decision: ComplianceGuard.Decision) =>
  decision._tag === "allow"
    ? "allow"
    : decision._tag === "block"
      ? `block ${decision.reason}`
      : `defer ${decision.reason} ${decision.until?.toISOString() ?? "null"}`;
const calls = (channel: ComplianceGuard.Channel, ...isos: ReadonlyArray<string>): ComplianceGuard.Contact[] =>
  isos.map((iso) => ({ channel, at: at(iso), conversation: false }));

describe("defaults", () => {
  it("are the quiet hours 21:00-08:00, 7 calls in 7 days, a 7-day cooldown, and the paid channels", () => {
    const settings = ComplianceGuard.defaultSettings("Europe/Paris");
    expect(settings.quietHours).toEqual({ start: "21:00", end: "08:00" });
    expect(settings.caps.map((cap) => [cap.channel, cap.max, cap.windowDays, cap.counts])).toEqual(
      ["ai_call", "manual_call", "voicemail"].map((channel) => [
        channel,
        7,
        7,
        ["ai_call", "manual_call", "voicemail"],
      ]),
    );
    expect(settings.conversationCooldownDays).toBe(7);
    expect([...settings.paidChannels].sort()).toEqual(["ai_call", "manual_call", "sms", "voicemail", "whatsapp"]);
  });
});

describe("decide", () => {
  it("allows an action inside every rule", () => {
    expect(decide()).toEqual({ _tag: "allow" });
  });

  it("blocks a channel the debtor opted out of, before anything else", () => {
    expect(decide({ channel: "sms", optOuts: ["sms"], holds: [{ kind: "dispute", until: null }] })).toEqual({
      _tag: "block",
      reason: "opted_out",
      detail: "the debtor opted out of sms",
    });
    expect(outcome(decide({ channel: "email", optOuts: ["sms"] }))).toBe("allow");
  });

  it("blocks a channel with no recipient", () => {
    expect(
      [
        decide({ channel: "email", debtor: { ...paris, email: null } }),
        decide({ channel: "email", debtor: { ...paris, email: "not an address" } }),
        decide({ channel: "sms", debtor: { ...paris, phone: null } }),
        decide({ channel: "ai_call", debtor: { ...paris, phone: "+331" } }),
        decide({ channel: "postmail" }),
        decide({ channel: "postmail", debtor: { ...paris, address: "12 rue de la Paix", postalCode: null } }),
        decide({ channel: "postmail", debtor: { ...paris, address: "12 rue de la Paix" } }),
        decide({ channel: "whatsapp", debtor: { ...paris, phone: "06 12 34 56 78" } }),
      ].map(outcome),
    ).toEqual([
      "block no_recipient",
      "block no_recipient",
      "block no_recipient",
      "block no_recipient",
      "block no_recipient",
      "block no_recipient",
      "allow",
      "allow",
    ]);
  });

  it("blocks e-mail to an address that bounced for good or complained, and no other channel", () => {
    const bounced = { ...paris, emailUndeliverable: "bounce: 550 5.1.1 user unknown" };
    expect(decide({ channel: "email", debtor: bounced, holds: [{ kind: "dispute", until: null }] })).toEqual({
      _tag: "block",
      reason: "undeliverable",
      detail: "the e-mail address is undeliverable (bounce: 550 5.1.1 user unknown)",
    });
    expect(outcome(decide({ channel: "email", debtor: bounced, optOuts: ["email"] }))).toBe("block opted_out");
    expect(outcome(decide({ channel: "sms", debtor: bounced }))).toBe("allow");
    expect(outcome(decide({ channel: "email", debtor: { ...paris, emailUndeliverable: null } }))).toBe("allow");
  });

  it("defers during a hold until its end, placed at the next allowed instant, or until lifted", () => {
    expect(
      [
        decide({ holds: [{ kind: "dispute", until: at("2026-03-05T12:00:00Z") }] }),
        // Friday 21:00 in Paris: the next allowed instant is Monday 09:00.
        decide({ holds: [{ kind: "promise_to_pay", until: at("2026-03-06T20:00:00Z") }] }),
        decide({
          holds: [
            { kind: "hardship", until: at("2026-03-03T10:00:00Z") },
            { kind: "payment_plan", until: null },
          ],
        }),
        decide({ holds: [{ kind: "paused", until: at(monday) }] }),
      ].map(outcome),
    ).toEqual([
      "defer hold 2026-03-05T12:00:00.000Z",
      "defer hold 2026-03-09T08:00:00.000Z",
      "defer hold null",
      "allow",
    ]);
  });

  it("defers a paid channel with no credits until credits come, and lets a free one through", () => {
    expect(
      [
        decide({ channel: "sms", credits: 0 }),
        decide({ channel: "voicemail", credits: -3 }),
        decide({ channel: "email", credits: 0 }),
      ].map(outcome),
    ).toEqual(["defer no_credits null", "defer no_credits null", "allow"]);
  });

  it("defers a call over the cap of 7 calls in 7 days until the oldest leaves the window", () => {
    const week = [
      ...calls(
        "ai_call",
        "2026-02-24T09:30:00Z",
        "2026-02-25T09:30:00Z",
        "2026-02-26T09:30:00Z",
        "2026-02-27T09:30:00Z",
      ),
      ...calls("manual_call", "2026-02-28T09:30:00Z", "2026-03-01T09:30:00Z"),
      ...calls("voicemail", "2026-03-02T08:30:00Z"),
    ];
    expect(decide({ history: week })).toEqual({
      _tag: "defer",
      until: at("2026-03-03T09:30:00Z"),
      reason: "cap_reached",
      detail: "7 of at most 7 ai_call/manual_call/voicemail attempts in 7 days",
    });
    expect(outcome(decide({ channel: "manual_call", history: week }))).toBe(
      "defer cap_reached 2026-03-03T09:30:00.000Z",
    );
    // Six attempts, or the oldest exactly 7 days ago, or e-mails: below the cap.
    expect(outcome(decide({ history: week.slice(1) }))).toBe("allow");
    expect(outcome(decide({ history: [...calls("ai_call", "2026-02-23T09:00:00Z"), ...week.slice(1)] }))).toBe("allow");
    expect(outcome(decide({ channel: "email", history: week }))).toBe("allow");
  });

  it("places the end of a cap at the next allowed instant", () => {
    const settings = {
      ...ComplianceGuard.defaultSettings("Europe/Paris"),
      caps: [{ channel: "sms" as const, max: 2, windowDays: 1 }],
    };
    // The older SMS leaves the window on Tuesday at 22:00 in Paris: quiet until Wednesday 08:00, window from 09:00.
    const history = calls("sms", "2026-03-02T21:00:00Z", "2026-03-03T08:30:00Z");
    expect(outcome(decide({ channel: "sms", settings, history, now: at("2026-03-03T09:00:00Z") }))).toBe(
      "defer cap_reached 2026-03-04T08:00:00.000Z",
    );
    // Four SMS in the day, at most two: below the cap once the three oldest have left, at the third's anniversary.
    const four = calls(
      "sms",
      "2026-03-02T10:00:00Z",
      "2026-03-02T11:00:00Z",
      "2026-03-02T12:00:00Z",
      "2026-03-02T13:00:00Z",
    );
    expect(outcome(decide({ channel: "sms", settings, history: four, now: at("2026-03-02T14:00:00Z") }))).toBe(
      "defer cap_reached 2026-03-03T12:00:00.000Z",
    );
    expect(
      outcome(decide({ channel: "sms", settings: { ...settings, caps: [{ channel: "sms", max: 0, windowDays: 7 }] } })),
    ).toBe("defer cap_reached null");
  });

  it("holds calls for 7 days after a telephone conversation, not other channels", () => {
    const conversation = { channel: "ai_call" as const, at: at("2026-03-01T10:00:00Z"), conversation: true };
    // Seven days later is Sunday 8 March: the next allowed instant is Monday 09:00 in Paris.
    expect(outcome(decide({ history: [conversation] }))).toBe("defer conversation_cooldown 2026-03-09T08:00:00.000Z");
    expect(outcome(decide({ channel: "voicemail", history: [conversation] }))).toBe(
      "defer conversation_cooldown 2026-03-09T08:00:00.000Z",
    );
    expect(outcome(decide({ channel: "sms", history: [conversation] }))).toBe("allow");
    expect(outcome(decide({ history: [{ ...conversation, channel: "email" }] }))).toBe("allow");
    expect(outcome(decide({ history: [{ ...conversation, at: at("2026-02-23T09:00:00Z") }] }))).toBe("allow");
  });

  it("gives the reason that waits longest when several apply", () => {
    const conversation = { channel: "ai_call" as const, at: at("2026-03-01T10:00:00Z"), conversation: true };
    const hold = { kind: "dispute" as const, until: at("2026-03-04T12:00:00Z") };
    expect(outcome(decide({ history: [conversation], holds: [hold] }))).toBe(
      "defer conversation_cooldown 2026-03-09T08:00:00.000Z",
    );
    expect(outcome(decide({ history: [conversation], holds: [{ ...hold, until: at("2026-03-10T12:00:00Z") }] }))).toBe(
      "defer hold 2026-03-10T12:00:00.000Z",
    );
  });

  it("defers quiet hours, the window and the weekday to the next allowed instant", () => {
    const allDay = everyDay("00:00", "24:00", "Europe/Paris");
    expect(
      [
        decide({ scheduling: allDay, now: at("2026-03-02T06:00:00Z") }),
        decide({
          scheduling: allDay,
          now: at("2026-03-02T11:30:00Z"),
          debtor: { ...paris, quietHours: { start: "12:00", end: "14:00" } },
        }),
        decide({ now: at("2026-03-02T17:30:00Z") }),
        decide({ now: at("2026-03-07T09:00:00Z") }),
      ].map(outcome),
    ).toEqual([
      "defer quiet_hours 2026-03-02T07:00:00.000Z",
      "defer quiet_hours 2026-03-02T13:00:00.000Z",
      "defer outside_window 2026-03-03T08:00:00.000Z",
      "defer weekday 2026-03-09T08:00:00.000Z",
    ]);
    expect(decide({ now: at("2026-03-02T20:30:00Z") })).toEqual({
      _tag: "defer",
      until: at("2026-03-03T08:00:00Z"),
      reason: "quiet_hours",
      detail: "21:30 in Europe/Paris is within quiet hours 21:00-08:00",
    });
  });

  it("defers until something changes when no minute is ever allowed", () => {
    // The window lies inside the quiet hours: the reason is the one of the instant itself.
    expect(outcome(decide({ scheduling: everyDay("22:00", "02:00") }))).toBe("defer outside_window null");
    expect(outcome(decide({ scheduling: everyDay("22:00", "02:00"), now: at("2026-03-02T22:00:00Z") }))).toBe(
      "defer quiet_hours null",
    );
    expect(outcome(decide({ scheduling: { ...weekdays, weekdays: [] } }))).toBe("defer weekday null");
    expect(outcome(decide({ scheduling: everyDay("25:00", "26:00") }))).toBe("defer outside_window null");
    // Russia's candidate zones span ten hours: no minute of 09:00-18:00 is inside the window in all of them
    // (and at 09:00Z, Kamchatka's clock reads 21:00).
    expect(
      outcome(decide({ channel: "email", debtor: { ...paris, country: "RU", postalCode: null, phone: null } })),
    ).toBe("defer quiet_hours null");
  });
});

describe("time rules across zones", () => {
  const settings = ComplianceGuard.defaultSettings("UTC");
  const next = (
    from: string,
    zones: ReadonlyArray<string>,
    scheduling: ComplianceGuard.Scheduling,
    overrides: Partial<ComplianceGuard.Settings> = {},
  ) =>
    ComplianceGuard.nextAllowedInstant(
      at(from),
      zones,
      scheduling,
      { ...settings, ...overrides },
      paris,
    )?.toISOString() ?? null;

  it("follows Paris across its daylight-saving changes", () => {
    expect(next("2026-03-28T12:00:00Z", ["Europe/Paris"], everyDay("08:00", "09:00"))).toBe("2026-03-29T06:00:00.000Z");
    expect(next("2026-10-24T12:00:00Z", ["Europe/Paris"], everyDay("08:00", "09:00"))).toBe("2026-10-25T07:00:00.000Z");
  });

  it("opens a window whose start New York skips at the jump, and finds the second 01:30 of the autumn night", () => {
    const lateQuiet = { quietHours: { start: "23:00", end: "24:00" } };
    // 8 March 2026: 02:00 EST jumps to 03:00 EDT (07:00Z), inside 02:30-04:00.
    expect(next("2026-03-08T06:00:00Z", ["America/New_York"], everyDay("02:30", "04:00"), lateQuiet)).toBe(
      "2026-03-08T07:00:00.000Z",
    );
    // 1 November 2026: 01:00-02:00 happens twice; 01:50 EDT is 05:50Z, 01:30 EST is 06:30Z.
    expect(next("2026-11-01T05:50:00Z", ["America/New_York"], everyDay("01:30", "01:45"), lateQuiet)).toBe(
      "2026-11-01T06:30:00.000Z",
    );
    expect(next("2026-11-01T05:10:00Z", ["America/New_York"], everyDay("01:30", "01:45"), lateQuiet)).toBe(
      "2026-11-01T05:30:00.000Z",
    );
  });

  it("reads the weekday of a window that crosses midnight on the day it opened", () => {
    const fridayNight: ComplianceGuard.Scheduling = {
      timeZone: "Europe/Paris",
      weekdays: [5],
      window: { start: "22:00", end: "02:00" },
    };
    const early = { quietHours: { start: "03:00", end: "04:00" } };
    // Saturday 00:30 in Paris belongs to Friday's window; Friday 00:30 to Thursday's.
    expect(next("2026-03-06T23:30:00Z", ["Europe/Paris"], fridayNight, early)).toBe("2026-03-06T23:30:00.000Z");
    expect(next("2026-03-05T23:30:00Z", ["Europe/Paris"], fridayNight, early)).toBe("2026-03-06T21:00:00.000Z");
    expect(
      outcome(
        ComplianceGuard.decide(
          input({
            now: at("2026-03-05T23:30:00Z"),
            scheduling: fridayNight,
            settings: { ...ComplianceGuard.defaultSettings("Europe/Paris"), ...early },
          }),
        ),
      ),
    ).toBe("defer weekday 2026-03-06T21:00:00.000Z");
  });

  it("reads Kiritimati's Monday while UTC is still on Sunday, and stays conservative over Kiribati's three zones", () => {
    const kiritimati: ComplianceGuard.Scheduling = { ...weekdays, timeZone: "Pacific/Kiritimati" };
    const unknown = { ...paris, country: null, postalCode: null, phone: null };
    const sunday = at("2026-03-01T19:30:00Z");
    const settingsThere = ComplianceGuard.defaultSettings("Pacific/Kiritimati");
    expect(
      outcome(
        ComplianceGuard.decide(
          input({ now: sunday, channel: "email", scheduling: kiritimati, settings: settingsThere, debtor: unknown }),
        ),
      ),
    ).toBe("allow");
    // Tarawa (UTC+12) reads 07:30, inside the quiet hours, until 08:00 there.
    const kiribati = { ...unknown, country: "KI" };
    expect(
      outcome(
        ComplianceGuard.decide(
          input({ now: sunday, channel: "email", scheduling: kiritimati, settings: settingsThere, debtor: kiribati }),
        ),
      ),
    ).toBe("defer quiet_hours 2026-03-01T20:00:00.000Z");
    // The debtor's own window in all three zones: 09:00 in Tarawa is 11:00 in Kiritimati.
    expect(next("2026-03-01T19:30:00Z", ["Pacific/Kanton", "Pacific/Kiritimati", "Pacific/Tarawa"], weekdays)).toBe(
      "2026-03-01T21:00:00.000Z",
    );
  });

  it("honours offsets of 30 and 45 minutes", () => {
    expect(
      outcome(
        decide({
          debtor: { ...paris, country: "NP" },
          scheduling: everyDay("09:00", "17:00"),
          now: at("2026-03-02T00:00:00Z"),
        }),
      ),
    ).toBe("defer quiet_hours 2026-03-02T03:15:00.000Z");
    expect(next("2026-03-01T00:00:00Z", ["Asia/Kolkata"], everyDay("09:00", "10:00", "Asia/Kolkata"))).toBe(
      "2026-03-01T03:30:00.000Z",
    );
    // Chatham is UTC+13:45 in March: 09:00 on 2 March there is 19:15Z on 1 March.
    expect(next("2026-03-01T00:00:00Z", ["Pacific/Chatham"], everyDay("09:00", "10:00"))).toBe(
      "2026-03-01T19:15:00.000Z",
    );
    // Lord Howe moves by 30 minutes: UTC+11 until 5 April 2026 at 02:00 local, then UTC+10:30.
    expect(next("2026-04-04T12:00:00Z", ["Australia/Lord_Howe"], everyDay("08:00", "09:00"))).toBe(
      "2026-04-04T21:30:00.000Z",
    );
    expect(next("2026-04-03T12:00:00Z", ["Australia/Lord_Howe"], everyDay("08:00", "09:00"))).toBe(
      "2026-04-03T21:00:00.000Z",
    );
  });

  it("returns the starting instant itself when it is allowed", () => {
    expect(next("2026-03-02T09:00:00.250Z", ["Europe/Paris"], weekdays)).toBe("2026-03-02T09:00:00.250Z");
  });
});
