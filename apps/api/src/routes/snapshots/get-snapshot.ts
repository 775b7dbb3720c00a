/**
 * GET /campaigns/{apiReference}/snapshots/{snapshotReference}: the snapshot
 * status resource (`status_url`), with `counts`, `failure` and, once
 * completed, the warnings. Scope `debts:read` (docs/decisions/0303).
 */
import { type Endpoints, snapshotMessages } from "@dc/contract";
import type { HandlerOf } from "../../http/handler.ts";
import { acknowledgement } from "./snapshot-ack.ts";
import { requireSnapshot } from "./snapshot-lookup.ts";

export const getSnapshot: HandlerOf<Endpoints["getSnapshot"]> = async ({ params, principal, services }) => {
  const { campaign, snapshot } = await requireSnapshot(services, principal, params);
  return {
    body: {
      error: false,
      message: snapshotMessages.retrieved,
      data: acknowledgement(snapshot, campaign.api_reference),
    },
  };
};
