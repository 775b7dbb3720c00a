/**
 * A company's overrides of the compliance guard's defaults, as stored in
 * `companies.engine_settings` (JSON, snake_case like every stored
 * definition): quiet hours, caps, the cooldown after a conversation and the
 * paid channels, each optional. `resolve` lays them over
 * `ComplianceGuard.defaultSettings` for the company's zone; `scheduling`
 * reads a timeline version's stored scheduling for the guard.
 */
import { Schema } from "effect";
import * as Channel from "./Channel.ts";
import * as ComplianceGuard from "./ComplianceGuard.ts";
import * as DailyWindow from "./DailyWindow.ts";
import type * as TimelineDefinition from "./TimelineDefinition.ts";

/** Schema of a stored cap: at most `max` attempts of `counts` (default: `channel`) in any `window_days` days. */
export const CapRule = Schema.Struct({
  channel: Channel.Channel,
  max: Schema.Int.pipe(Schema.nonNegative({ message: () => "must be 0 or more" })),
  window_days: Schema.Number.pipe(Schema.positive({ message: () => "must be more than 0" })),
  counts: Schema.optionalWith(Schema.Array(Channel.Channel), { exact: true }),
}).annotations({ identifier: "ComplianceCapRule", parseOptions: { onExcessProperty: "error" } });

/** Schema of the stored overrides; `{}` keeps every default. `caps`, when given, replaces the default caps whole. */
export const Overrides = Schema.Struct({
  quiet_hours: Schema.optionalWith(DailyWindow.Window, { exact: true }),
  caps: Schema.optionalWith(Schema.Array(CapRule), { exact: true }),
  conversation_cooldown_days: Schema.optionalWith(
    Schema.Number.pipe(Schema.nonNegative({ message: () => "must be 0 or more" })),
    {
      exact: true,
    },
  ),
  paid_channels: Schema.optionalWith(Schema.Array(Channel.Channel), { exact: true }),
}).annotations({ identifier: "ComplianceOverrides", parseOptions: { onExcessProperty: "error" } });
export type Overrides = typeof Overrides.Type;

/** The guard's settings of a company: its overrides over the defaults, in its zone. */
export const resolve = (companyTimeZone: string, overrides: Overrides): ComplianceGuard.Settings => {
  const defaults = ComplianceGuard.defaultSettings(companyTimeZone);
  return {
    companyTimeZone,
    quietHours: overrides.quiet_hours ?? defaults.quietHours,
    caps:
      overrides.caps?.map(({ channel, max, window_days, counts }) =>
        counts === undefined
          ? { channel, max, windowDays: window_days }
          : { channel, max, windowDays: window_days, counts },
      ) ?? defaults.caps,
    conversationCooldownDays: overrides.conversation_cooldown_days ?? defaults.conversationCooldownDays,
    paidChannels: overrides.paid_channels ?? defaults.paidChannels,
  };
};

/** A timeline version's stored scheduling (`time_zone`, null: the debtor's), as the guard takes it. */
export const scheduling = (stored: TimelineDefinition.Scheduling): ComplianceGuard.Scheduling => ({
  timeZone: stored.time_zone,
  weekdays: stored.weekdays,
  window: stored.window,
});
