/** Administration of creditors, timelines and campaigns. */
import { type Db, insertCampaign, insertNamedCreditor, insertTimeline, insertTimelineActions, insertTimepoints } from "@dc/db";

export interface NewCreditor {
  readonly companyId: number;
  readonly name: string;
  readonly email?: string | undefined;
  readonly phone?: string | undefined;
  readonly country?: string | undefined;
}

export const createCreditor = (db: Db, creditor: NewCreditor) => insertNamedCreditor(db, creditor);

/**
 * A timeline with a sensible default schedule: an e-mail at day 0, an SMS at
 * day 3, an AI call at day 7 and a final e-mail at day 14.
 */
export const createTimeline = (db: Db, companyId: number, name: string) =>
  db.transaction().execute(async (trx) => {
    const timeline = await insertTimeline(trx, companyId, name);
    const steps = [
      { day_offset: 0, channel: "email", configuration: { sender_name: name }, content: { subject: "Payment reminder", body: "..." } },
      { day_offset: 3, channel: "sms", configuration: {}, content: { body: "..." } },
      { day_offset: 7, channel: "ai_call", configuration: { voice: "neutral", max_attempts: 2 }, content: { script: "...", callback_number: "+33100000000" } },
      { day_offset: 14, channel: "email", configuration: { sender_name: name }, content: { subject: "Final notice", body: "..." } },
    ] as const;
    const timepoints = await insertTimepoints(
      trx,
      { companyId, timelineId: timeline.id },
      steps.map((step, position) => ({ position, dayOffset: step.day_offset })),
    );
    await insertTimelineActions(
      trx,
      companyId,
      timepoints.map((timepoint) => {
        const step = steps[timepoint.position]!;
        return {
          timepointId: timepoint.id,
          position: 0,
          channel: step.channel,
          configuration: step.configuration,
          content: step.content,
        };
      }),
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
