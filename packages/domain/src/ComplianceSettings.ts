/**
 * Schemas of what configures the compliance guard, for the places that
 * accept it as JSON: a timeline's `scheduling` and a company's guard
 * settings. What they decode is what `ComplianceGuard.decide` takes, so a
 * setting that passes here is one the guard can honour (a known time zone,
 * weekdays 1 to 7, windows of "HH:MM" times).
 */
import { Schema } from "effect";
import * as Channel from "./Channel.ts";
import * as DailyWindow from "./DailyWindow.ts";
import * as DebtorTimeZone from "./DebtorTimeZone.ts";

/** Schema of an IANA time zone name this runtime knows ("Europe/Paris", "UTC"). */
export const TimeZone = Schema.String.pipe(
  Schema.filter(DebtorTimeZone.isTimeZone, { message: () => "must be an IANA time zone such as Europe/Paris" }),
).annotations({ identifier: "TimeZone" });

/** Schema of an ISO weekday: 1 = Monday to 7 = Sunday. */
export const Weekday = Schema.Int.pipe(Schema.between(1, 7, { message: () => "must be an ISO weekday, 1 (Monday) to 7 (Sunday)" }));

/** Schema of a timeline's scheduling: zone (null: the debtor's), weekdays and daily window. */
export const Scheduling = Schema.Struct({
  timeZone: Schema.NullOr(TimeZone),
  weekdays: Schema.Array(Weekday).pipe(Schema.minItems(1, { message: () => "must name at least one weekday" })),
  window: DailyWindow.Window,
}).annotations({ identifier: "Scheduling" });

/** Schema of a cap: at most `max` attempts in any `windowDays` days. */
export const CapRule = Schema.Struct({
  channel: Channel.Channel,
  max: Schema.Int.pipe(Schema.nonNegative({ message: () => "must be 0 or more" })),
  windowDays: Schema.Number.pipe(Schema.positive({ message: () => "must be more than 0" })),
  counts: Schema.optionalWith(Schema.Array(Channel.Channel), { exact: true }),
}).annotations({ identifier: "CapRule" });

/** Schema of a company's guard settings. */
export const Settings = Schema.Struct({
  companyTimeZone: TimeZone,
  quietHours: DailyWindow.Window,
  caps: Schema.Array(CapRule),
  conversationCooldownDays: Schema.Number.pipe(Schema.nonNegative({ message: () => "must be 0 or more" })),
  paidChannels: Schema.Array(Channel.Channel),
}).annotations({ identifier: "ComplianceSettings" });
