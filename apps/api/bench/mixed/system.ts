/**
 * The system under mixed load: seeded companies on a given database, two (or
 * `apiProcesses`) api processes on it in production mode, one worker process
 * applying the snapshot submits, and per tenant a token, its campaign and a
 * sample of its debt ids. Used by the benchmark and by its bounded CI test.
 */
import { randomBytes } from "node:crypto";
import type { Database } from "@dc/db";
import type { Kysely } from "kysely";
import { type DomainIds as Ids, makeIds } from "@dc/db";
import { fetchToken, freePort, rssOf, type Service, startApiService, startWorkerService } from "../processes.ts";
import { type Seeded, seed, type SeedShape } from "../seed.ts";
import type { LoadTenant } from "./mix.ts";

/** The benchmark's data: 4 companies, 5 creditors each, 2,500 debts per creditor (50,000 debts). */
export const MIXED_LOAD_SHAPE: SeedShape = {
  companies: 4,
  creditorsPerCompany: 5,
  debtsPerCreditor: 2_500,
  bigCreditorDebts: 0,
};

export interface MixedSystemOptions {
  readonly databaseUrl: string;
  readonly db: Kysely<Database>;
  readonly shape: SeedShape;
  /** RATE_LIMIT_SCALE of the api processes. */
  readonly rateLimitScale: number;
  readonly apiProcesses?: number;
  /** Seeded debts per tenant that the mix reads and follows up. */
  readonly debtIdsPerTenant?: number;
  /** Extra environment of the api processes (e.g. DATABASE_POOL_SIZE). */
  readonly apiEnv?: Record<string, string>;
}

export interface MixedSystem {
  readonly ids: Ids;
  readonly seeded: Seeded;
  readonly apis: ReadonlyArray<Service & { readonly url: string }>;
  readonly worker: Service;
  readonly tenants: ReadonlyArray<LoadTenant>;
  /** Resident memory of each process now, labelled. */
  readonly memory: () => Array<{ readonly process: string; readonly rssMb: number; readonly peakMb: number }>;
  /** Stops every process (worker last, so it finishes the snapshots in hand). */
  readonly stop: () => Promise<void>;
}

/** Seeds, starts the processes and gets tokens; on any failure stops what it started and rethrows. */
export const startMixedSystem = async (options: MixedSystemOptions): Promise<MixedSystem> => {
  const idKey = randomBytes(36).toString("base64");
  const ids = makeIds(new TextEncoder().encode(idKey));
  const started: Service[] = [];
  const stop = async () => {
    for (const service of started.reverse()) await service.stop();
  };
  try {
    const seeded = await seed(options.db, ids, options.shape);
    const apis = await Promise.all(
      Array.from({ length: options.apiProcesses ?? 2 }, async () => {
        const api = await startApiService({
          databaseUrl: options.databaseUrl,
          idKey,
          port: await freePort(),
          rateLimitScale: options.rateLimitScale,
          ...(options.apiEnv === undefined ? {} : { env: options.apiEnv }),
        });
        started.push(api);
        return api;
      }),
    );
    const worker = startWorkerService({ databaseUrl: options.databaseUrl, idKey });
    started.unshift(worker);
    const tenants = await Promise.all(
      seeded.tenants.map(async (tenant, index): Promise<LoadTenant> => {
        const companyId = ids.decode("company", tenant.company_id)!;
        const debts = await options.db
          .selectFrom("debts")
          .select("id")
          .where("company_id", "=", companyId)
          .orderBy("id")
          .limit(options.debtIdsPerTenant ?? 2_000)
          .execute();
        return {
          token: await fetchToken(apis[index % apis.length]!.url, tenant),
          campaign: tenant.campaign_api_reference,
          debtIds: debts.map((debt) => ids.encode("debt", Number(debt.id))),
        };
      }),
    );
    const memory = () => [
      ...apis.map((api, index) => ({ process: `api ${index + 1}`, ...rssOf(api.pid) })),
      { process: "worker", ...rssOf(worker.pid) },
    ];
    return { ids, seeded, apis, worker, tenants, memory, stop };
  } catch (error) {
    await stop();
    throw error;
  }
};

/** Samples each process's VmRSS every `intervalMs` until stopped; returns the highest sample per process. */
export const sampleMemory = (system: MixedSystem, intervalMs = 500) => {
  const peaks = new Map<string, number>();
  const sample = () => {
    for (const entry of system.memory()) peaks.set(entry.process, Math.max(peaks.get(entry.process) ?? 0, entry.rssMb));
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    stop: (): Map<string, number> => {
      clearInterval(timer);
      sample();
      return peaks;
    },
  };
};
