/** GET /sandbox/clock: a sandbox company's time now (404 for a live company). */
import { type Endpoints, sandboxMessages } from "@dc/contract";
import type { HandlerOf } from "../../http/handler.ts";
import { sandboxClockOf } from "./sandbox-clock.ts";

export const getSandboxClock: HandlerOf<Endpoints["getSandboxClock"]> = async ({ principal, services }) => {
  const clock = await sandboxClockOf(services, principal.companyId);
  return { body: { error: false, message: sandboxMessages.clockRetrieved, data: { now: clock.now } } };
};
