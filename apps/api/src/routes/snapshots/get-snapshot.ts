/**
 * GET /campaigns/{apiReference}/snapshots/{snapshotReference}: the snapshot
 * status resource (`status_url`), with `counts`, `failure` and, once
 * completed, the warnings. Scope `debts:read` (docs/decisions/0303).
 *
 * With `Prefer: wait=<seconds>` (RFC 7240), a read of a snapshot that is
 * `pending` or `processing` answers when the snapshot settles or when the
 * seconds (at most SNAPSHOT_STATUS_MAX_WAIT_SECONDS) have passed
 * (docs/decisions/0307). The wait holds no database connection.
 */
import { type Endpoints, SNAPSHOT_STATUS_MAX_WAIT_SECONDS, snapshotMessages } from "@dc/contract";
import type { HandlerOf } from "../../http/handler.ts";
import { presentSnapshot } from "../../presenters/present-snapshot.ts";
import { awaitsWorker } from "./snapshot-ack.ts";
import type { StatusChange } from "./status-watch.ts";
import { readSnapshot, requireSnapshot } from "./snapshot-lookup.ts";

/**
 * The seconds a `Prefer` header asks to wait, capped; undefined when it asks
 * for none or its value is unusable (RFC 7240: such a preference is ignored).
 */
export const preferredWaitSeconds = (prefer: string): number | undefined => {
  for (const preference of prefer.split(",")) {
    const [token = "", value = ""] = (preference.split(";")[0] ?? "").split("=").map((part) => part.trim());
    if (token.toLowerCase() !== "wait") continue;
    const seconds = /^"?(\d{1,9})"?$/.exec(value)?.[1];
    return seconds === undefined ? undefined : Math.min(Number(seconds), SNAPSHOT_STATUS_MAX_WAIT_SECONDS);
  }
  return undefined;
};

export const getSnapshot: HandlerOf<Endpoints["getSnapshot"]> = async ({ params, principal, services, ctx }) => {
  const found = await requireSnapshot(services, principal, params);
  const { campaign } = found;
  let { snapshot } = found;
  const waitSeconds = preferredWaitSeconds(ctx.get("prefer"));
  if (waitSeconds !== undefined && awaitsWorker(snapshot)) {
    const deadline = performance.now() + waitSeconds * 1_000;
    // A client that goes away ends its wait: it would otherwise hold its company's place (0013) for nothing.
    let abandoned = false;
    let change: StatusChange | undefined;
    const onClose = () => {
      abandoned = true;
      change?.cancel();
    };
    ctx.res.once("close", onClose);
    try {
      while (awaitsWorker(snapshot) && !abandoned) {
        const remainingMs = deadline - performance.now();
        if (remainingMs <= 0) break;
        // Subscribed before the read: a change committed after the read still wakes this wait.
        change = services.snapshotStatus.subscribe(snapshot.id, remainingMs);
        snapshot = await readSnapshot(services, principal, campaign, params.snapshotReference);
        if (!awaitsWorker(snapshot) || change.closed || abandoned) {
          change.cancel();
          break;
        }
        await change.next;
      }
    } finally {
      ctx.res.removeListener("close", onClose);
    }
  }
  // An `uploading` snapshot waits for the integration's next chunk, not for the worker: not waited for.
  const waitApplied = waitSeconds !== undefined && snapshot.status !== "uploading";
  return {
    ...(waitApplied ? { headers: { "Preference-Applied": `wait=${waitSeconds}` } } : {}),
    body: {
      error: false,
      message: snapshotMessages.retrieved,
      data: presentSnapshot(snapshot, campaign.api_reference),
    },
  };
};
