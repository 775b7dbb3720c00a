/** Adds actions to a company's timepoints, one statement for all; settings and content are stored as JSON. */
import type { Database } from "../../schema.ts";
import type { Db } from "../executor.ts";

type Channel = Database["timeline_actions"]["channel"];

export const insertTimelineActions = async (
  db: Db,
  companyId: number,
  actions: ReadonlyArray<{
    readonly timepointId: number;
    readonly position: number;
    readonly channel: Channel;
    readonly configuration: unknown;
    readonly content: unknown;
  }>,
): Promise<void> => {
  await db
    .insertInto("timeline_actions")
    .values(
      actions.map((action) => ({
        company_id: companyId,
        timepoint_id: action.timepointId,
        position: action.position,
        channel: action.channel,
        configuration: JSON.stringify(action.configuration),
        content: JSON.stringify(action.content),
      })),
    )
    .execute();
};
