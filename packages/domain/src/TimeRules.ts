/**
 * The time rules of the compliance guard, over several time zones at once:
 * an instant is allowed when, in every zone of the schedule, its local time
 * lies in the sending window on an allowed weekday, and, in every zone the
 * debtor may be in, it lies outside every quiet window. Local time comes from
 * the runtime's time-zone data (through `@date-fns/tz`), so daylight-saving
 * changes and 30 or 45-minute offsets are those of the IANA database. The
 * allowed instants form intervals whose ends are instants where some zone's
 * local clock reaches a window bound or midnight, or where a zone's offset
 * changes; `next` jumps from a failing instant to the next event of the
 * zone where it failed, so it finds the first allowed instant exactly, not by
 * stepping minute by minute.
 */
import { tzOffset } from "@date-fns/tz";
import * as DailyWindow from "./DailyWindow.ts";

const minuteMs = 60_000;
const dayMs = 86_400_000;

/** How far `next` looks for an allowed instant: two weeks cover every weekly pattern and a daylight-saving change. */
export const horizonDays = 14;

/** The time rules, compiled. */
export interface Rules {
  /** Zones the window and the weekdays are read in (the timeline's, or the debtor's candidates). */
  readonly scheduleZones: ReadonlyArray<string>;
  /** Zones the quiet hours are read in: the debtor's candidates. */
  readonly debtorZones: ReadonlyArray<string>;
  /** The sending window; null when it is not a valid window (then nothing is allowed). */
  readonly window: DailyWindow.Minutes | null;
  /** ISO weekdays, 1 = Monday to 7 = Sunday. */
  readonly weekdays: ReadonlySet<number>;
  /** Quiet windows; a null one is invalid and, read conservatively, quiet all day. */
  readonly quiet: ReadonlyArray<DailyWindow.Minutes | null>;
}

export type TimeReason = "quiet_hours" | "weekday" | "outside_window";

/** Why an instant is not allowed, and in which zone. */
export interface Violation {
  readonly reason: TimeReason;
  readonly zone: string;
  readonly detail: string;
}

/**
 * A zone's UTC offsets from a starting instant on, found lazily: sampled a
 * day apart, with each change located to the millisecond by bisection. It
 * assumes at most one offset change within a day, which holds for every zone
 * of the IANA database in the years the service runs.
 */
class ZoneOffsets {
  private readonly zone: string;
  private readonly starts: number[];
  private readonly offsets: number[];
  private coveredUntil: number;

  constructor(zone: string, from: number) {
    this.zone = zone;
    this.starts = [from];
    this.offsets = [this.raw(from)];
    this.coveredUntil = from;
  }

  private raw(instant: number): number {
    return tzOffset(this.zone, new Date(instant));
  }

  private extendTo(instant: number): void {
    while (this.coveredUntil < instant) {
      const next = this.coveredUntil + dayMs;
      const last = this.offsets[this.offsets.length - 1] ?? 0;
      const offset = this.raw(next);
      if (offset !== last) {
        let low = this.coveredUntil;
        let high = next;
        while (high - low > 1) {
          const middle = Math.floor((low + high) / 2);
          if (this.raw(middle) === last) low = middle;
          else high = middle;
        }
        this.starts.push(high);
        this.offsets.push(this.raw(high));
      }
      this.coveredUntil = next;
    }
  }

  /** The offset in minutes at an instant no earlier than the starting one. */
  offsetAt(instant: number): number {
    this.extendTo(instant);
    let index = this.starts.length - 1;
    while (index > 0 && (this.starts[index] ?? 0) > instant) index -= 1;
    return this.offsets[index] ?? 0;
  }

  /** The first offset change strictly after `instant` and no later than `limit`, or Infinity. */
  nextChange(instant: number, limit: number): number {
    this.extendTo(limit);
    const start = this.starts.find((candidate) => candidate > instant);
    return start !== undefined && start <= limit ? start : Infinity;
  }
}

/** A local clock reading: minute of the day (0 to 1439) and ISO weekday. */
interface Reading {
  readonly minute: number;
  readonly weekday: number;
  readonly local: number;
  readonly offset: number;
}

const read = (offsets: ZoneOffsets, instant: number): Reading => {
  const offset = offsets.offsetAt(instant);
  const local = instant + offset * minuteMs;
  const day = Math.floor(local / dayMs);
  const minute = Math.floor((local - day * dayMs) / minuteMs);
  // 1 January 1970 was a Thursday (ISO 4).
  const weekday = ((((day + 3) % 7) + 7) % 7) + 1;
  return { minute, weekday, local, offset };
};

/** The weekday a window minute belongs to: after midnight in a window that crosses it, the day the window opened. */
const windowWeekday = (window: DailyWindow.Minutes | null, reading: Reading): number =>
  window !== null && DailyWindow.crossesMidnight(window) && reading.minute < window.end
    ? ((reading.weekday + 5) % 7) + 1
    : reading.weekday;

const weekdayNames = ["", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

const describe = (window: DailyWindow.Minutes | null): string =>
  window === null ? "an invalid window" : `${DailyWindow.format(window.start)}-${DailyWindow.format(window.end)}`;

/** The time rules evaluated from an instant on: one offset table per zone, shared by every reading. */
export class Evaluator {
  readonly rules: Rules;
  readonly from: number;
  private readonly zones = new Map<string, ZoneOffsets>();
  /** Per zone, the minutes of the local day where a rule read in that zone may change. */
  private readonly bounds = new Map<string, ReadonlyArray<number>>();

  constructor(rules: Rules, from: number) {
    this.rules = rules;
    this.from = from;
    for (const zone of [...rules.scheduleZones, ...rules.debtorZones]) {
      if (this.zones.has(zone)) continue;
      this.zones.set(zone, new ZoneOffsets(zone, from));
      const bounds: number[] = [];
      if (rules.scheduleZones.includes(zone)) {
        bounds.push(0);
        if (rules.window !== null) bounds.push(rules.window.start, rules.window.end);
      }
      if (rules.debtorZones.includes(zone)) {
        for (const window of rules.quiet) if (window !== null) bounds.push(window.start, window.end);
      }
      this.bounds.set(zone, [...new Set(bounds)]);
    }
  }

  private offsets(zone: string): ZoneOffsets {
    const offsets = this.zones.get(zone);
    if (offsets === undefined) throw new Error(`no offsets for ${zone}`);
    return offsets;
  }

  /** Why `instant` (no earlier than `from`) is not allowed, or null when it is. Quiet hours come first, then the weekday, then the window. */
  violation(instant: number): Violation | null {
    const { rules } = this;
    for (const zone of rules.debtorZones) {
      const reading = read(this.offsets(zone), instant);
      const quiet = rules.quiet.find((window) => window === null || DailyWindow.contains(window, reading.minute));
      if (quiet !== undefined) {
        return {
          reason: "quiet_hours",
          zone,
          detail: `${DailyWindow.format(reading.minute)} in ${zone} is within quiet hours ${describe(quiet)}`,
        };
      }
    }
    for (const zone of rules.scheduleZones) {
      const weekday = windowWeekday(rules.window, read(this.offsets(zone), instant));
      if (!rules.weekdays.has(weekday)) {
        return {
          reason: "weekday",
          zone,
          detail: `${weekdayNames[weekday] ?? weekday} in ${zone} is not a sending day`,
        };
      }
    }
    for (const zone of rules.scheduleZones) {
      const reading = read(this.offsets(zone), instant);
      if (rules.window === null || !DailyWindow.contains(rules.window, reading.minute)) {
        return {
          reason: "outside_window",
          zone,
          detail: `${DailyWindow.format(reading.minute)} in ${zone} is outside the sending window ${describe(rules.window)}`,
        };
      }
    }
    return null;
  }

  /**
   * The next instant after `instant` where `zone`'s clock reaches one of its
   * bounds or midnight, or its offset changes: until then, every rule read in
   * that zone keeps its verdict.
   */
  private nextEvent(zone: string, instant: number): number {
    const offsets = this.offsets(zone);
    const reading = read(offsets, instant);
    const dayStart = Math.floor(reading.local / dayMs) * dayMs;
    let boundary = Infinity;
    for (const bound of this.bounds.get(zone) ?? []) {
      let candidate = dayStart + bound * minuteMs;
      if (candidate <= reading.local) candidate += dayMs;
      boundary = Math.min(boundary, candidate);
    }
    // A zone always has a bound (midnight, or a quiet window's ends); a day ahead keeps the walk finite regardless.
    const reached = Number.isFinite(boundary) ? boundary - reading.offset * minuteMs : instant + dayMs;
    return Math.min(reached, offsets.nextChange(instant, reached));
  }

  /** The first allowed instant at or after `from`, within `horizonDays`, or null when there is none. */
  next(): number | null {
    const { rules, from } = this;
    if (rules.weekdays.size === 0 || rules.window === null || rules.window.start === rules.window.end) return null;
    if (rules.quiet.some((window) => window === null)) return null;
    const horizon = from + horizonDays * dayMs;
    let instant = from;
    while (instant <= horizon) {
      const violation = this.violation(instant);
      if (violation === null) return instant;
      // The rule that failed keeps failing until its zone's next event, so no instant before it is allowed.
      instant = this.nextEvent(violation.zone, instant);
    }
    return null;
  }
}

/** Compiles the rules; a weekday outside 1 to 7 is ignored. */
export const compile = (
  scheduleZones: ReadonlyArray<string>,
  debtorZones: ReadonlyArray<string>,
  window: DailyWindow.Window,
  weekdays: ReadonlyArray<number>,
  quiet: ReadonlyArray<DailyWindow.Window>,
): Rules => ({
  scheduleZones,
  debtorZones,
  window: DailyWindow.toMinutes(window),
  weekdays: new Set(weekdays.filter((day) => Number.isInteger(day) && day >= 1 && day <= 7)),
  quiet: quiet.map(DailyWindow.toMinutes),
});
