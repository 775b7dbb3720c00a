/**
 * Wakes status reads that wait for a snapshot to settle (`Prefer: wait`,
 * docs/decisions/0307). One connection per api process listens on the
 * channel every status change is announced on (migration 0015); a waiting
 * read subscribes to its snapshot's id, reads the status, and sleeps until
 * the id is announced or its time is up, then reads again.
 *
 * The connection is opened in the background at the first wait, one attempt
 * at a time, each bounded by the pools' connection timeout. Until it listens (and after
 * it is lost, or stops answering its health check), waits re-read every
 * FALLBACK_MS instead: an announcement can be missed, an outcome cannot.
 * `close` (a graceful stop) wakes every wait for its last read.
 */
import { createSessionClient, type SessionClient, SNAPSHOT_STATUS_CHANNEL } from "@dc/db";
import type { Logger } from "pino";

/** How often a wait re-reads the status when no announcement can reach it. */
export const FALLBACK_MS = 250;

/** Least time between two attempts to open the listening connection. */
const RECONNECT_MS = 1_000;

/**
 * How often the listening connection must answer a query. It only receives,
 * so a connection dropped silently on the way (an idle timeout in between)
 * would otherwise look healthy while no announcement arrives.
 */
const HEALTH_CHECK_MS = 30_000;

/** How long the health check's query may take to answer before the connection counts as lost. */
const HEALTH_CHECK_ANSWER_MS = 5_000;

export interface StatusChange {
  /** Resolves when the snapshot's status may have changed, when `timeoutMs` has passed, or at `close`. */
  readonly next: Promise<void>;
  readonly cancel: () => void;
  /** The api is stopping: answer with the status as it is. */
  readonly closed: boolean;
}

export interface SnapshotStatusWatch {
  /**
   * Subscribes to changes of snapshot `id` for at most `timeoutMs`. A status
   * read after this call cannot miss a change: either the change is
   * announced to the subscription, or (no connection listening yet) `next`
   * resolves within FALLBACK_MS for a read again.
   */
  readonly subscribe: (id: number, timeoutMs: number) => StatusChange;
  readonly close: () => Promise<void>;
}

export const watchSnapshotStatus = (connectionString: string, logger: Logger): SnapshotStatusWatch => {
  const waiters = new Map<number, Set<() => void>>();
  let listener: SessionClient | undefined;
  let connecting = false;
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

  const lose = (client: SessionClient, reason: string, error?: unknown) => {
    if (listener !== client) return;
    listener = undefined;
    logger.warn({ err: error }, `snapshot status watch: ${reason}`);
    // Announcements may have been missed: every wait reads again.
    wakeAll();
    client.removeAllListeners("end");
    void client.end().catch(() => undefined);
  };

  const listen = () => {
    if (listener !== undefined || connecting || closed || Date.now() - lastAttempt < RECONNECT_MS) return;
    connecting = true;
    lastAttempt = Date.now();
    const client = createSessionClient(connectionString, "debt-collection-api-status-watch");
    client.on("notification", (message) => {
      const id = Number(message.payload);
      if (Number.isSafeInteger(id)) wake(id);
    });
    client.on("error", (error) => lose(client, "connection lost", error));
    client.on("end", () => lose(client, "connection ended"));
    void (async () => {
      try {
        await client.connect();
        await client.query(`listen ${SNAPSHOT_STATUS_CHANNEL}`);
        if (closed) throw new Error("closed while connecting");
        listener = client;
      } catch (error) {
        if (!closed) logger.warn({ err: error }, "snapshot status watch: cannot listen; waits re-read the status instead");
        client.removeAllListeners("end");
        await client.end().catch(() => undefined);
      } finally {
        connecting = false;
      }
    })();
  };

  const healthCheck = setInterval(() => {
    const client = listener;
    if (client === undefined) return;
    const unanswered = setTimeout(() => lose(client, "health check unanswered"), HEALTH_CHECK_ANSWER_MS);
    client.query("select 1").then(
      () => clearTimeout(unanswered),
      (error: unknown) => {
        clearTimeout(unanswered);
        lose(client, "health check failed", error);
      },
    );
  }, HEALTH_CHECK_MS);
  healthCheck.unref();

  return {
    subscribe: (id, timeoutMs) => {
      if (closed) return { next: Promise.resolve(), cancel: () => undefined, closed: true };
      listen();
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
        resolve();
      };
      void next.then(cancel);
      return { next, cancel, closed: false };
    },
    close: async () => {
      closed = true;
      clearInterval(healthCheck);
      wakeAll();
      const client = listener;
      listener = undefined;
      client?.removeAllListeners("end");
      await client?.end().catch(() => undefined);
    },
  };
};
