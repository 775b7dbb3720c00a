/**
 * Requests in progress on this api process: a cap per company, so that one
 * tenant cannot hold every database connection of a process
 * (docs/decisions/0013), and the count a graceful stop waits on.
 */
import { TooManyConcurrentRequests } from "./api-error.ts";

export interface InFlight {
  /** Counts one request of `companyId`; throws TooManyConcurrentRequests at the cap. Returns its release. */
  readonly enterCompany: (companyId: number) => () => void;
  /** Runs `serve` as one request of the process. */
  readonly track: <T>(serve: () => Promise<T>) => Promise<T>;
  /** Resolves once no request is in progress (at once when none is); from then on, `stopping` is true. */
  readonly drain: () => Promise<void>;
  /** True once a stop has begun: responses then close their connection. */
  readonly stopping: () => boolean;
}

export const createInFlight = (maxPerCompany: number): InFlight => {
  const byCompany = new Map<number, number>();
  let total = 0;
  let waiters: Array<() => void> = [];
  let stopping = false;
  return {
    enterCompany: (companyId) => {
      const current = byCompany.get(companyId) ?? 0;
      if (current >= maxPerCompany) throw new TooManyConcurrentRequests();
      byCompany.set(companyId, current + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const remaining = (byCompany.get(companyId) ?? 1) - 1;
        if (remaining === 0) byCompany.delete(companyId);
        else byCompany.set(companyId, remaining);
      };
    },
    track: async (serve) => {
      total++;
      try {
        return await serve();
      } finally {
        total--;
        if (total === 0 && waiters.length > 0) {
          const done = waiters;
          waiters = [];
          for (const resolve of done) resolve();
        }
      }
    },
    drain: () => {
      stopping = true;
      return total === 0 ? Promise.resolve() : new Promise((resolve) => waiters.push(resolve));
    },
    stopping: () => stopping,
  };
};
