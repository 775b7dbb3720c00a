/**
 * One tenant seen as an integrator sees it, for the snapshot benchmarks
 * (snapshot-sync.ts, snapshot-million.ts): a tenant with a creditor and a
 * timeline on the bench database, one api and one worker process
 * (production mode), a bearer token, and the requests the benchmarks send.
 */
import type { Database } from "@dc/db";
import { makeIds } from "@dc/db";
import type { TimelineDefinition } from "@dc/domain";
import type { Kysely } from "kysely";
import { createCampaign, createCreditor, createTimeline } from "../src/admin/collection-setup.ts";
import { createTenant } from "../src/admin/tenants.ts";
import { standardDefinition } from "../src/admin/timelines.ts";
import { fetchToken, freePort, type Service, startApiService, startWorkerService } from "./processes.ts";

/** The counts of a completed snapshot, as its acknowledgement shows them. */
export interface SnapshotCounts {
  readonly created: number;
  readonly updated: number;
}

export interface SnapshotTenant {
  readonly api: Service & { readonly url: string };
  readonly worker: Service;
  /** Creates a campaign of the tenant on its creditor and timeline. */
  readonly newCampaign: (apiReference: string) => Promise<void>;
  readonly snapshotUrl: (campaign: string, reference: string) => string;
  /** Sends `body` with the token; throws unless the answer is `expected`; resolves to the round trip in ms. */
  readonly send: (method: string, url: string, body: string, expected: number) => Promise<number>;
  /**
   * Reads the snapshot with `Prefer: wait` (docs/decisions/0307: the api answers when the worker commits) until it
   * completes; throws when it fails or the worker exits. `at` is `performance.now()` at the answer.
   */
  readonly untilDone: (url: string) => Promise<{ readonly at: number; readonly counts: SnapshotCounts }>;
  /** Stops the worker, then the api. */
  readonly stop: () => Promise<void>;
}

export const startSnapshotTenant = async (
  database: { readonly db: Kysely<Database>; readonly url: string },
  {
    idKey,
    name,
    timeline: definition = standardDefinition,
  }: {
    readonly idKey: string;
    readonly name: string;
    /** The campaigns' timeline (default: the standard one, its first e-mail due at once). */
    readonly timeline?: TimelineDefinition.Definition;
  },
): Promise<SnapshotTenant> => {
  const ids = makeIds(new TextEncoder().encode(idKey));
  const tenant = await createTenant(database.db, ids, name);
  const companyId = ids.decode("company", tenant.company_id);
  if (companyId === undefined) throw new Error(`the new tenant's company id ${tenant.company_id} does not decode`);
  const creditor = await createCreditor(database.db, { companyId, name: "Ledger" });
  const timeline = await createTimeline(database.db, companyId, "Default", definition);
  const api = await startApiService({ databaseUrl: database.url, idKey, port: await freePort(), rateLimitScale: 1000 });
  const worker = startWorkerService({ databaseUrl: database.url, idKey });
  const stop = async () => {
    await worker.stop();
    await api.stop();
  };
  try {
    const token = await fetchToken(api.url, tenant);
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    return {
      api,
      worker,
      newCampaign: async (apiReference) => {
        await createCampaign(database.db, {
          companyId,
          apiReference,
          name: apiReference,
          creditorId: creditor.id,
          timelineId: timeline.id,
        });
      },
      snapshotUrl: (campaign, reference) => `${api.url}/external-api/v1/campaigns/${campaign}/snapshots/${reference}`,
      send: async (method, url, body, expected) => {
        const started = performance.now();
        const response = await fetch(url, { method, headers, body });
        const text = await response.text();
        const elapsed = performance.now() - started;
        if (response.status !== expected) throw new Error(`${method} ${url}: ${response.status} ${text.slice(0, 500)}`);
        return elapsed;
      },
      untilDone: async (url) => {
        for (;;) {
          if (worker.child.exitCode !== null || worker.child.signalCode !== null) {
            throw new Error(
              `the worker exited (${worker.child.exitCode ?? worker.child.signalCode}):\n${worker.output()}`,
            );
          }
          const response = await fetch(url, { headers: { ...headers, prefer: "wait=30" } });
          const { data } = (await response.json()) as {
            data: { status: string; failure: unknown; counts: SnapshotCounts };
          };
          if (data.status === "completed") return { at: performance.now(), counts: data.counts };
          if (data.status === "failed") throw new Error(`snapshot ${url} failed: ${JSON.stringify(data.failure)}`);
        }
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
};
