/** Administration of creditors, timelines and campaigns. */
import type { Database } from "@dc/db";
import type { Kysely } from "kysely";

export interface NewCreditor {
  readonly companyId: number;
  readonly name: string;
  readonly email?: string | undefined;
  readonly phone?: string | undefined;
  readonly country?: string | undefined;
}

export const createCreditor = (db: Kysely<Database>, creditor: NewCreditor) =>
  db
    .insertInto("creditors")
    .values({
      company_id: creditor.companyId,
      name: creditor.name,
      email: creditor.email ?? null,
      phone: creditor.phone ?? null,
      country: creditor.country ?? null,
    })
    .returning(["id", "name"])
    .executeTakeFirstOrThrow();

/**
 * A timeline with a sensible default schedule: an e-mail at day 0, an SMS at
 * day 3, an AI call at day 7 and a final e-mail at day 14.
 */
export const createTimeline = (db: Kysely<Database>, companyId: number, name: string) =>
  db.transaction().execute(async (trx) => {
    const timeline = await trx
      .insertInto("timelines")
      .values({ company_id: companyId, name })
      .returning(["id", "name"])
      .executeTakeFirstOrThrow();
    const steps = [
      { day_offset: 0, channel: "email", configuration: { sender_name: name }, content: { subject: "Payment reminder", body: "..." } },
      { day_offset: 3, channel: "sms", configuration: {}, content: { body: "..." } },
      { day_offset: 7, channel: "ai_call", configuration: { voice: "neutral", max_attempts: 2 }, content: { script: "...", callback_number: "+33100000000" } },
      { day_offset: 14, channel: "email", configuration: { sender_name: name }, content: { subject: "Final notice", body: "..." } },
    ] as const;
    const timepoints = await trx
      .insertInto("timeline_timepoints")
      .values(steps.map((step, position) => ({ company_id: companyId, timeline_id: timeline.id, position, day_offset: step.day_offset })))
      .returning(["id", "position"])
      .execute();
    await trx
      .insertInto("timeline_actions")
      .values(
        timepoints.map((timepoint) => {
          const step = steps[timepoint.position]!;
          return {
            company_id: companyId,
            timepoint_id: timepoint.id,
            position: 0,
            channel: step.channel,
            configuration: JSON.stringify(step.configuration),
            content: JSON.stringify(step.content),
          };
        }),
      )
      .execute();
    return timeline;
  });

export interface NewCampaign {
  readonly companyId: number;
  readonly apiReference: string;
  readonly name: string;
  readonly creditorId: number;
  readonly timelineId: number;
}

export const createCampaign = (db: Kysely<Database>, campaign: NewCampaign) =>
  db
    .insertInto("campaigns")
    .values({
      company_id: campaign.companyId,
      api_reference: campaign.apiReference,
      name: campaign.name,
      creditor_id: campaign.creditorId,
      timeline_id: campaign.timelineId,
    })
    .returning(["id", "api_reference", "name"])
    .executeTakeFirstOrThrow();
