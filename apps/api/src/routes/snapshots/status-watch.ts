/**
 * Wakes status reads that wait for a snapshot to settle (`Prefer: wait`,
 * docs/decisions/0307). One connection per api process listens on the
 * channel every status change is announced on (migration 0015); a waiting
 * read subscribes to its snapshot's id, reads the status, and sleeps until
 * the id is announced or its time is up, then reads again.
 *
 * The connection is opened on the first wait, not at start. When it is
 * down (a database restart), waits re-read every `FALLBACK_MS` instead and
 * the next subscription tries to listen again: an announcement can be
 * missed, an outcome cannot. `close` (a graceful stop) wakes every wait for
 * its last read.
 */
import { SNAPSHOT_STATUS_CHANNEL } from "@dc/db";
import pg from "pg";
import type { Logger } from "pino";

/** How often a wait re-reads the status when no announcement can reach it. */
export const FALLBACK_MS = 250;

/** Least time between two attempts to open the listening connection. */
const RECONNECT_MS = 1_000;

export interface StatusChange {
  /** Resolves when the snapshot's status may have changed, when `timeoutMs` has passed, or at `close`. */
  readonly next: Promise<void>;
  readonly cancel: () => void;
  /** The api is stopping: answer with the status as it is. */
  readonly closed: boolean;
}

export interface SnapshotStatusWatch {
  /**
   * Subscribes to changes of snapshot `id` for at most `timeoutMs`. Resolves
   * once the subscription is in place, so a status read after it cannot miss
   * a change announced before `next` is awaited.
   */
  readonly subscribe: (id: number, timeoutMs: number) => Promise<StatusChange>;
  readonly close: () => Promise<void>;
}

export const watchSnapshotStatus = (connectionString: string, logger: Logger): SnapshotStatusWatch => {
  const waiters = new Map<number, Set<() => void>>();
  let listener: pg.Client | undefined;
  let connecting: Promise<void> | undefined;
  let lastAttempt = 0;
  let closed = false;

  const wake = (id: number) => {
    const woken = waiters.get(id);
    waiters.delete(id);
    for (const resolve of woken ?? []) resolve();
  };
  const wakeAll = () => {
    for (const id of [...waiters.keys()]) wake(id);
  };

  const lose = (client: pg.Client) => {
    if (listener !== client) return;
    listener = undefined;
    // Announcements may have been missed while the connection was failing.
    wakeAll();
  };

  const listen = (): Promise<void> => {
    if (listener !== undefined || closed || Date.now() - lastAttempt < RECONNECT_MS) return connecting ?? Promise.resolve();
    lastAttempt = Date.now();
    connecting = (async () => {
      const client = new pg.Client({ connectionString, application_name: "debt-collection-api-status-watch" });
      client.on("notification", (message) => {
        const id = Number(message.payload);
        if (Number.isSafeInteger(id)) wake(id);
      });
      client.on("error", (error) => {
        logger.warn({ err: error }, "snapshot status watch: connection lost");
        lose(client);
      });
      client.on("end", () => lose(client));
      try {
        await client.connect();
        await client.query(`listen ${SNAPSHOT_STATUS_CHANNEL}`);
        if (closed) await client.end();
        else listener = client;
      } catch (error) {
        logger.warn({ err: error }, "snapshot status watch: cannot listen; waits re-read the status instead");
        client.removeAllListeners("end");
        await client.end().catch(() => undefined);
      } finally {
        connecting = undefined;
      }
    })();
    return connecting;
  };

  return {
    subscribe: async (id, timeoutMs) => {
      if (!closed) await listen();
      if (closed) return { next: Promise.resolve(), cancel: () => undefined, closed: true };
      let resolve!: () => void;
      const next = new Promise<void>((done) => (resolve = done));
      const timer = setTimeout(resolve, listener === undefined ? Math.min(timeoutMs, FALLBACK_MS) : timeoutMs);
      const woken = () => {
        clearTimeout(timer);
        resolve();
      };
      const set = waiters.get(id) ?? new Set<() => void>();
      waiters.set(id, set.add(woken));
      const cancel = () => {
        clearTimeout(timer);
        set.delete(woken);
        if (set.size === 0 && waiters.get(id) === set) waiters.delete(id);
      };
      void next.then(cancel);
      return { next, cancel, closed: false };
    },
    close: async () => {
      closed = true;
      wakeAll();
      await connecting;
      const client = listener;
      listener = undefined;
      await client?.end().catch(() => undefined);
    },
  };
};
