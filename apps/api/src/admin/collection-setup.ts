/** Administration of creditors, timelines and campaigns. */
import {
  type Db,
  insertCampaign,
  insertNamedCreditor,
  insertTimeline,
  insertTimelineActions,
  insertTimepoints,
} from "@dc/db";
import { TimelineDefinition } from "@dc/domain";

export interface NewCreditor {
  readonly companyId: number;
  readonly name: string;
  readonly email?: string | undefined;
  readonly phone?: string | undefined;
  readonly country?: string | undefined;
}

export const createCreditor = (db: Db, creditor: NewCreditor) => insertNamedCreditor(db, creditor);

/**
 * The schedule a new tenant's timeline starts with: an e-mail at day 0, an
 * SMS at day 3, an AI call at day 7 (two attempts) and a final e-mail at day
 * 14, on weekdays from 09:00 to 19:00 in the debtor's own time zone. Content
 * left out is the channel's default template.
 */
export const defaultTimelineDefinition = (senderName: string): TimelineDefinition.Definition => ({
  scheduling: { time_zone: null, weekdays: [1, 2, 3, 4, 5], window: { start: "09:00", end: "19:00" } },
  steps: [
    {
      day_offset: 0,
      channel: "email",
      configuration: { sender_name: senderName },
      content: { subject: "Payment reminder" },
    },
    { day_offset: 3, channel: "sms", configuration: {}, content: {} },
    { day_offset: 7, channel: "ai_call", configuration: { voice: "neutral", max_attempts: 2 }, content: {} },
    {
      day_offset: 14,
      channel: "email",
      configuration: { sender_name: senderName },
      content: { subject: "Final notice" },
    },
  ],
});

/**
 * A timeline from `definition` (by default `defaultTimelineDefinition`): the
 * timeline with its version 1, which enrollments take, and the timepoints
 * and actions `GET /timelines` lists (one timepoint per day offset).
 */
export const createTimeline = (
  db: Db,
  companyId: number,
  name: string,
  definition: TimelineDefinition.Definition = defaultTimelineDefinition(name),
) =>
  db.transaction().execute(async (trx) => {
    const ordered = TimelineDefinition.inRunOrder(definition);
    const timeline = await insertTimeline(trx, companyId, name, ordered);
    const offsets = [...new Set(ordered.steps.map((step) => step.day_offset))];
    const timepoints = await insertTimepoints(
      trx,
      { companyId, timelineId: timeline.id },
      offsets.map((dayOffset, position) => ({ position, dayOffset })),
    );
    const timepointOf = new Map(timepoints.map((timepoint) => [offsets[timepoint.position], timepoint.id]));
    await insertTimelineActions(
      trx,
      companyId,
      ordered.steps.map((step, index) => ({
        timepointId: timepointOf.get(step.day_offset)!,
        position: ordered.steps.slice(0, index).filter((earlier) => earlier.day_offset === step.day_offset).length,
        channel: step.channel,
        configuration: step.configuration,
        content: step.content,
      })),
    );
    return timeline;
  });

export interface NewCampaign {
  readonly companyId: number;
  readonly apiReference: string;
  readonly name: string;
  readonly creditorId: number;
  readonly timelineId: number;
}

export const createCampaign = (db: Db, campaign: NewCampaign) => insertCampaign(db, campaign);
