/**
 * GET /timelines: the company's timelines with their timepoints and actions.
 * One statement nests timepoints and actions (`listTimelines`); the
 * `content` column is never read (docs/decisions/0157), and the settings
 * shown are filtered again by `presentTimeline`.
 */
import type { Endpoints } from "@dc/contract";
import { listTimelines as listCompanyTimelines, timelineOrder } from "@dc/db";
import type { HandlerOf } from "../../http/handler.ts";
import { listWalk } from "../../http/list-walk.ts";
import { presentTimeline } from "../../presenters/present-timeline.ts";

export const listTimelines: HandlerOf<Endpoints["listTimelines"]> = async ({ query, principal, services }) => {
  const walk = listWalk(services, { companyId: principal.companyId, list: "timelines", filters: {}, keyset: timelineOrder }, query);
  const page = await listCompanyTimelines(services.db, principal.companyId, walk.request);
  return {
    body: {
      error: false,
      data: page.rows.map((row) => presentTimeline(services.ids, row)),
      pagination: walk.pagination(page),
    },
  };
};
