/**
 * The compliance guard: one pure function that says whether an action of a
 * timeline may reach a debtor on a channel now, must wait (and until when),
 * or must not happen, with the reason. It is called at send time, in the
 * transaction that re-reads the debt. Opt-outs and missing recipients block;
 * holds, zero credits on a paid channel, the rolling-window caps and the
 * cooldown after a telephone conversation defer; and the time rules (the
 * timeline's weekdays and window, the quiet hours in the debtor's local time,
 * conservative over every zone the debtor may be in) place the deferred action
 * at the next allowed instant. docs/decisions/0610-compliance-guard.md holds
 * the rules and their defaults.
 */
import * as ChannelRules from "./Channel.ts";
import type { Channel } from "./Channel.ts";
import * as Contacts from "./Contact.ts";
import type { Window } from "./DailyWindow.ts";
import * as DebtorTimeZone from "./DebtorTimeZone.ts";
import * as TimeRules from "./TimeRules.ts";

export type { Channel } from "./Channel.ts";
export type { Window } from "./DailyWindow.ts";

const dayMs = 86_400_000;

/** A timeline's scheduling. */
export interface Scheduling {
  /** The zone the window and weekdays are read in; null: the debtor's (every candidate zone). */
  readonly timeZone: string | null;
  /** ISO weekdays, 1 = Monday to 7 = Sunday. */
  readonly weekdays: ReadonlyArray<number>;
  readonly window: Window;
}

/** At most `max` attempts in any `windowDays` days (per debt). */
export interface CapRule {
  /** The channel the cap applies to. */
  readonly channel: Channel;
  readonly max: number;
  readonly windowDays: number;
  /** The channels whose attempts count toward the cap; default: `channel` alone. */
  readonly counts?: ReadonlyArray<Channel>;
}

/** A company's compliance settings. */
export interface Settings {
  /** The company's zone: the debtor's when nothing says where the debtor is. */
  readonly companyTimeZone: string;
  /** When nothing is allowed, in the debtor's local time. */
  readonly quietHours: Window;
  readonly caps: ReadonlyArray<CapRule>;
  /** Days after a telephone conversation during which no call is placed. */
  readonly conversationCooldownDays: number;
  /** Channels that cost credits. */
  readonly paidChannels: ReadonlyArray<Channel>;
}

/**
 * The defaults, after US Regulation F: nothing between 21:00 and 08:00 in the
 * debtor's local time; at most 7 telephone calls (AI calls, calls by a
 * person and voicemail drops together) per debt in any 7 days; no call in the
 * 7 days after a telephone conversation; calls, voicemail, SMS and WhatsApp
 * wait for credits.
 */
export const defaultSettings = (companyTimeZone: string): Settings => ({
  companyTimeZone,
  quietHours: { start: "21:00", end: "08:00" },
  caps: ChannelRules.callChannels.map((channel) => ({
    channel,
    max: 7,
    windowDays: 7,
    counts: ChannelRules.callChannels,
  })),
  conversationCooldownDays: 7,
  paidChannels: ChannelRules.paidChannels,
});

/** What the guard knows of the debtor. */
export interface Debtor extends DebtorTimeZone.Location {
  readonly country: string | null;
  readonly postalCode: string | null;
  readonly phone: string | null;
  readonly email: string | null;
  /** Why `email` no longer receives mail (it bounced for good, or its owner complained), or null when it does. */
  readonly emailUndeliverable?: string | null;
  /** The street address (or the legacy full address): a letter needs it, with a postal code or a city. */
  readonly address?: string | null;
  readonly city?: string | null;
  /** The debtor's own quiet hours, added to the company's. */
  readonly quietHours?: Window;
}

/** An executed contact of the debt: an attempt on its channel; `conversation` when the debtor was reached and spoke. */
export interface Contact {
  readonly channel: Channel;
  readonly at: Date;
  readonly conversation: boolean;
}

/** Something that stops the timeline until a date (null: until it is lifted). */
export interface Hold {
  readonly kind: "dispute" | "hardship" | "payment_plan" | "promise_to_pay" | "paused" | "ai_dispute";
  readonly until: Date | null;
}

export interface Input {
  readonly now: Date;
  readonly channel: Channel;
  readonly debtor: Debtor;
  readonly scheduling: Scheduling;
  readonly settings: Settings;
  /** Executed contacts of this debt, none after `now`. */
  readonly history: ReadonlyArray<Contact>;
  readonly optOuts: ReadonlyArray<Channel>;
  readonly holds: ReadonlyArray<Hold>;
  readonly credits: number;
}

export type Reason =
  | "quiet_hours"
  | "outside_window"
  | "weekday"
  | "cap_reached"
  | "conversation_cooldown"
  | "opted_out"
  | "hold"
  | "no_credits"
  | "no_recipient"
  | "undeliverable";

export type Decision =
  | { readonly _tag: "allow" }
  | {
      readonly _tag: "defer";
      /** When to try again; null: when something changes (a hold is lifted, credits are bought, the settings change). */
      readonly until: Date | null;
      readonly reason: Reason;
      readonly detail?: string;
    }
  | { readonly _tag: "block"; readonly reason: Reason; readonly detail?: string };

/** Why the channel cannot reach this debtor at all, or null when it can. */
const missingRecipient = (debtor: Debtor, channel: Channel): string | null => {
  const filled = (text: string | null | undefined): boolean =>
    text !== null && text !== undefined && text.trim() !== "";
  if (channel === "email")
    return debtor.email !== null && Contacts.isEmail(debtor.email.trim()) ? null : "no valid e-mail address";
  if (channel === "postmail") {
    return filled(debtor.address) && (filled(debtor.postalCode) || filled(debtor.city))
      ? null
      : "no postal address (street and postal code or city)";
  }
  return DebtorTimeZone.isDiallable(debtor.phone, DebtorTimeZone.countryCode(debtor.country))
    ? null
    : "no diallable phone number";
};

/** A reason to wait, and until when (null: until something changes). */
interface Wait {
  readonly reason: Reason;
  readonly until: number | null;
  readonly detail: string;
}

const iso = (instant: number): string => new Date(instant).toISOString();

const holdWait = (holds: ReadonlyArray<Hold>, now: number): Wait | null => {
  const active = holds.filter((hold) => hold.until === null || hold.until.getTime() > now);
  if (active.length === 0) return null;
  const open = active.find((hold) => hold.until === null);
  if (open !== undefined) return { reason: "hold", until: null, detail: `${open.kind} hold until lifted` };
  const last = active.reduce((latest, hold) =>
    (hold.until?.getTime() ?? 0) > (latest.until?.getTime() ?? 0) ? hold : latest,
  );
  const until = last.until?.getTime() ?? now;
  return { reason: "hold", until, detail: `${last.kind} hold until ${iso(until)}` };
};

/** The attempts a cap counts at `now`: contacts of its channels in (now - window, now]. */
export const countedAttempts = (rule: CapRule, history: ReadonlyArray<Contact>, now: Date): ReadonlyArray<Contact> => {
  const counts = rule.counts ?? [rule.channel];
  const since = now.getTime() - rule.windowDays * dayMs;
  return history.filter(
    (contact) =>
      counts.includes(contact.channel) && contact.at.getTime() > since && contact.at.getTime() <= now.getTime(),
  );
};

const capWaits = (input: Input): ReadonlyArray<Wait> =>
  input.settings.caps.flatMap((rule): ReadonlyArray<Wait> => {
    if (rule.channel !== input.channel) return [];
    const max = Math.max(0, Math.floor(rule.max));
    const attempts = countedAttempts(rule, input.history, input.now);
    if (attempts.length < max) return [];
    const detail = `${attempts.length} of at most ${max} ${(rule.counts ?? [rule.channel]).join("/")} attempts in ${rule.windowDays} days`;
    if (max === 0) return [{ reason: "cap_reached", until: null, detail }];
    // Below the cap once the oldest attempts beyond max - 1 have left the window.
    const times = attempts.map((contact) => contact.at.getTime()).sort((a, b) => a - b);
    return [{ reason: "cap_reached", until: (times[attempts.length - max] ?? 0) + rule.windowDays * dayMs, detail }];
  });

const cooldownWait = (input: Input): Wait | null => {
  const { settings, channel, history, now } = input;
  if (!ChannelRules.isCall(channel) || !(settings.conversationCooldownDays > 0)) return null;
  const length = settings.conversationCooldownDays * dayMs;
  const last = history
    .filter(
      (contact) =>
        contact.conversation && ChannelRules.isCall(contact.channel) && contact.at.getTime() <= now.getTime(),
    )
    .reduce((latest, contact) => Math.max(latest, contact.at.getTime()), -Infinity);
  if (last + length <= now.getTime()) return null;
  return { reason: "conversation_cooldown", until: last + length, detail: `telephone conversation at ${iso(last)}` };
};

const rules = (
  zones: ReadonlyArray<string>,
  scheduling: Scheduling,
  settings: Settings,
  debtor: Debtor,
): TimeRules.Rules => {
  const known = zones.filter(DebtorTimeZone.isTimeZone);
  const debtorZones = known.length > 0 ? known : [DebtorTimeZone.companyZone(settings.companyTimeZone)];
  // A timeline zone this runtime does not know is read as the company's: the timeline was written in its terms.
  const scheduleZones =
    scheduling.timeZone === null
      ? debtorZones
      : [
          DebtorTimeZone.isTimeZone(scheduling.timeZone)
            ? scheduling.timeZone
            : DebtorTimeZone.companyZone(settings.companyTimeZone),
        ];
  const quiet = debtor.quietHours === undefined ? [settings.quietHours] : [settings.quietHours, debtor.quietHours];
  return TimeRules.compile(scheduleZones, debtorZones, scheduling.window, scheduling.weekdays, quiet);
};

/**
 * The first instant at or after `from` that the time rules allow in every
 * zone (`zones`: the debtor's candidates, `DebtorTimeZone.candidates`), or
 * null when there is none in the next 14 days (the window lies inside the
 * quiet hours, no weekday is allowed, the candidate zones share no allowed
 * minute). Used to place a deferred or a newly scheduled action.
 */
export const nextAllowedInstant = (
  from: Date,
  zones: ReadonlyArray<string>,
  scheduling: Scheduling,
  settings: Settings,
  debtor: Debtor,
): Date | null => {
  const next = new TimeRules.Evaluator(rules(zones, scheduling, settings, debtor), from.getTime()).next();
  return next === null ? null : new Date(next);
};

/**
 * The guard's decision for one action now. Blocks first (opt-out, then no
 * recipient, then an e-mail address known to be undeliverable); then every reason to wait: a hold, no credits on a paid
 * channel, a cap reached, the cooldown after a telephone conversation; a
 * deferred action waits until all of them have passed and the time rules
 * allow it, and the reason given is the one that waits longest. With nothing
 * else to wait for, an instant outside the time rules defers to the next
 * allowed one with the time reason (quiet hours first, then the weekday,
 * then the window).
 */
export const decide = (input: Input): Decision => {
  const { channel, debtor, settings, now } = input;
  if (input.optOuts.includes(channel))
    return { _tag: "block", reason: "opted_out", detail: `the debtor opted out of ${channel}` };
  const missing = missingRecipient(debtor, channel);
  if (missing !== null) return { _tag: "block", reason: "no_recipient", detail: missing };
  if (channel === "email" && debtor.emailUndeliverable !== undefined && debtor.emailUndeliverable !== null)
    return { _tag: "block", reason: "undeliverable", detail: `the e-mail address is undeliverable (${debtor.emailUndeliverable})` };

  const waits: Wait[] = [];
  const hold = holdWait(input.holds, now.getTime());
  if (hold !== null) waits.push(hold);
  if (settings.paidChannels.includes(channel) && !(input.credits > 0)) {
    waits.push({
      reason: "no_credits",
      until: null,
      detail: `${channel} costs credits and the balance is ${input.credits}`,
    });
  }
  waits.push(...capWaits(input));
  const cooldown = cooldownWait(input);
  if (cooldown !== null) waits.push(cooldown);

  const open = waits.find((wait) => wait.until === null);
  if (open !== undefined) return { _tag: "defer", until: null, reason: open.reason, detail: open.detail };

  const binding = waits.reduce<Wait | null>(
    (latest, wait) => (latest === null || (wait.until ?? 0) > (latest.until ?? 0) ? wait : latest),
    null,
  );
  const start = Math.max(now.getTime(), binding?.until ?? now.getTime());
  const zones = DebtorTimeZone.candidates(debtor, settings.companyTimeZone);
  const evaluator = new TimeRules.Evaluator(rules(zones, input.scheduling, settings, debtor), start);
  const next = evaluator.next();
  if (next === null) {
    const violation = evaluator.violation(start);
    const detail = `${violation?.detail ?? "no allowed minute"}; no minute is allowed in the next ${TimeRules.horizonDays} days`;
    return { _tag: "defer", until: null, reason: violation?.reason ?? "outside_window", detail };
  }
  if (binding !== null) return { _tag: "defer", until: new Date(next), reason: binding.reason, detail: binding.detail };
  if (next === now.getTime()) return { _tag: "allow" };
  const violation = evaluator.violation(now.getTime());
  return {
    _tag: "defer",
    until: new Date(next),
    reason: violation?.reason ?? "outside_window",
    detail: violation?.detail ?? "",
  };
};
