/**
 * GET /timelines: the company's timelines with their timepoints and actions.
 * One statement nests timepoints and actions (`listTimelines`); the
 * `content` column is never read (docs/decisions/0157), and the settings
 * shown are filtered again by `presentTimeline`.
 */
import { type Endpoints, paginationOf } from "@dc/contract";
import { listTimelines as listCompanyTimelines } from "@dc/db";
import type { HandlerOf } from "../../http/handler.ts";
import { presentTimeline } from "../../presenters/present-timeline.ts";

export const listTimelines: HandlerOf<Endpoints["listTimelines"]> = async ({ query, principal, services }) => {
  const { rows, total } = await listCompanyTimelines(services.db, principal.companyId, query);
  return {
    body: {
      error: false,
      data: rows.map((row) => presentTimeline(services.ids, row)),
      pagination: paginationOf(query, total),
    },
  };
};
