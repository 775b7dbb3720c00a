/**
 * POST /sandbox/clock/advance: moves a sandbox company's clock to `to`
 * (docs/decisions/0621). The advance itself is the worker's
 * `advance_sandbox_clock` job (`enqueueAdvanceSandboxClock`), which runs every
 * action due up to `to` with the engine's own code and never moves the clock
 * back; this request queues it, committed, then waits until the company has
 * no advance queued or running and its clock is at `to` or later, reading
 * both every POLL_MS. Past the wait bound it answers 503 and the job carries
 * on; repeating the request waits again.
 *
 * Where the job finished below `to` (another request replaced this one's
 * target with an earlier one before it started), the advance is queued
 * again: the clock only moves forward, so each pass gets closer.
 */
import { type Endpoints, SANDBOX_MAX_ADVANCE_DAYS, sandboxErrorCodes, sandboxMessages } from "@dc/contract";
import { enqueueAdvanceSandboxClock, findSandboxClockState } from "@dc/db";
import { setTimeout as sleep } from "node:timers/promises";
import { StillRunning, ValidationFailed } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { sandboxClockOf } from "./sandbox-clock.ts";

/** How often the wait reads the clock and the queue. */
const POLL_MS = 50;

const DAY_MS = 86_400_000;

export const advanceSandboxClock: HandlerOf<Endpoints["advanceSandboxClock"]> = async ({
  body,
  principal,
  services,
}) => {
  const { companyId } = principal;
  const clock = await sandboxClockOf(services, companyId);
  const to = body.to;
  if (to.getTime() <= clock.now.getTime()) {
    throw new ValidationFailed({
      details: { to: `must be later than the sandbox clock's now, ${clock.now.toISOString()}` },
    });
  }
  if (to.getTime() > clock.now.getTime() + SANDBOX_MAX_ADVANCE_DAYS * DAY_MS) {
    throw new ValidationFailed({
      details: {
        to: `must be at most ${SANDBOX_MAX_ADVANCE_DAYS} days after the sandbox clock's now, ${clock.now.toISOString()}`,
      },
    });
  }
  await enqueueAdvanceSandboxClock(services.db, companyId, to);
  const deadline = performance.now() + services.config.sandboxAdvanceWaitMs;
  for (;;) {
    const state = await findSandboxClockState(services.db, companyId);
    const now = state?.now ?? null;
    if (state !== undefined && !state.advancing && now !== null) {
      if (now.getTime() >= to.getTime()) {
        return { body: { error: false, message: sandboxMessages.clockAdvanced, data: { now } } };
      }
      await enqueueAdvanceSandboxClock(services.db, companyId, to);
    }
    if (performance.now() >= deadline) {
      throw new StillRunning({
        message: sandboxMessages.advancing,
        errorCode: sandboxErrorCodes.advancing,
        retryAfterSeconds: 1,
      });
    }
    await sleep(POLL_MS);
  }
};
