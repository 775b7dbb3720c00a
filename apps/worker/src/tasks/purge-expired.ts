/**
 * `purge_expired`: deletes credentials and counters that can no longer be
 * used (and Idempotency-Key records past their 24 hours), then what the
 * retention settings no longer keep (retention.ts).
 * Tokens and codes stay one day past expiry, so a client presenting one
 * just after it lapsed still meets a row (and the precise error), not silence.
 */
import { Schema } from "effect";
import type { Task } from "graphile-worker";
import {
  type CredentialTable,
  type Db,
  deleteExpiredCounters,
  deleteExpiredCredentials,
  deleteUnusedGrants,
  findExpiredCredentials,
  purgeIdempotencyKeysBatch,
} from "@dc/db";
import type { Logger } from "pino";
import type { Clock } from "@dc/runtime";
import { defineTask } from "../define-task.ts";
import type { WorkerMetrics } from "../observability/metrics.ts";
import { DEFAULT_RETENTION, purgeRetained, type RetentionSettings } from "../retention.ts";

/** The task's identifier in graphile-worker. */
export const PURGE_EXPIRED = "purge_expired";

const GRACE_MS = 24 * 60 * 60 * 1000;

/** Idempotency-Key records deleted per statement (one company's). */
const IDEMPOTENCY_KEY_BATCH = 5_000;

/** Rows deleted by one purge, per table. */
export interface PurgeCounts {
  readonly oauth_access_tokens: number;
  readonly oauth_refresh_tokens: number;
  readonly oauth_authorization_codes: number;
  readonly rate_limit_counters: number;
  readonly oauth_grants: number;
  readonly oauth_login_sessions: number;
  /** Idempotency-Key records past their 24 hours (docs/decisions/0024). */
  readonly idempotency_keys: number;
}

/**
 * Deletes everything expired as of `now`: access and refresh tokens and
 * authorization codes expired more than a day before `now`, consent-page
 * login sessions past their absolute expiry, grants older than a day that
 * have no token or code left, and rate-limit counters whose `expires_at` is
 * before `now`. One read finds what each company has to purge; then each
 * company's rows go in one transaction of their own, a statement per table
 * over the ids read (DESIGN.md 6: no transaction spans two companies). The
 * rate-limit counters belong to no company (their key names the subject)
 * and go in one statement. Safe to run concurrently and repeatedly.
 */
export const purgeExpired = async (db: Db, now: Date): Promise<PurgeCounts> => {
  const cutoff = new Date(now.getTime() - GRACE_MS);
  const companies = await findExpiredCredentials(db, { cutoff, now });
  const counts = {
    oauth_access_tokens: 0,
    oauth_refresh_tokens: 0,
    oauth_authorization_codes: 0,
    rate_limit_counters: 0,
    oauth_grants: 0,
    oauth_login_sessions: 0,
    idempotency_keys: 0,
  };
  for (const expired of companies) {
    const companyId = Number(expired.company_id);
    const deleted = await db.transaction().execute(async (trx) => {
      const remove = (table: CredentialTable, ids: ReadonlyArray<string>, expiry: Date) =>
        deleteExpiredCredentials(trx, { table, companyId, ids, expiry });
      const access = await remove("oauth_access_tokens", expired.access, cutoff);
      const refresh = await remove("oauth_refresh_tokens", expired.refresh, cutoff);
      const codes = await remove("oauth_authorization_codes", expired.codes, cutoff);
      const sessions = await remove("oauth_login_sessions", expired.sessions, now);
      // After the tokens and codes, so a grant whose last token was purged above goes in the same run.
      const grants = await deleteUnusedGrants(trx, companyId, expired.grants);
      return { access, refresh, codes, sessions, grants };
    });
    counts.oauth_access_tokens += deleted.access;
    counts.oauth_refresh_tokens += deleted.refresh;
    counts.oauth_authorization_codes += deleted.codes;
    counts.oauth_login_sessions += deleted.sessions;
    counts.oauth_grants += deleted.grants;
  }
  counts.rate_limit_counters = await deleteExpiredCounters(db, now);
  // A batch stops at one company's records, so a short batch may still leave other companies' for the next.
  for (;;) {
    const deleted = await purgeIdempotencyKeysBatch(db, { now, limit: IDEMPOTENCY_KEY_BATCH });
    counts.idempotency_keys += deleted;
    if (deleted === 0) break;
  }
  return counts;
};

/** Cron adds `_cron` ({ ts, backfilled }) to the jobs it schedules; nothing else is accepted. */
const PurgeExpiredPayload = Schema.Union(
  Schema.Undefined,
  Schema.Null,
  Schema.Struct({
    _cron: Schema.optional(Schema.Struct({ ts: Schema.String, backfilled: Schema.optional(Schema.Boolean) })),
  }),
);

/** Dependencies of the `purge_expired` task. */
export interface PurgeExpiredDependencies {
  readonly db: Db;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Default: `DEFAULT_RETENTION`. */
  readonly retention?: RetentionSettings;
  /** Counts what each run removed (`purge_removed_total`); none in tests that do not look. */
  readonly metrics?: WorkerMetrics;
}

/** The `purge_expired` task. Database errors propagate, so graphile-worker retries. */
export const purgeExpiredTask = ({
  db,
  clock,
  logger,
  retention = DEFAULT_RETENTION,
  metrics,
}: PurgeExpiredDependencies): Task =>
  defineTask(PurgeExpiredPayload, logger, async (_payload, helpers) => {
    const now = clock.now();
    const purged = await purgeExpired(db, now);
    const retained = await purgeRetained(db, now, retention);
    logger.info({ task: PURGE_EXPIRED, jobId: helpers.job.id, purged, retention: retained }, "expired rows purged");
    // Events recorded for expired snapshots are not removals: they stay in the log line only.
    const { snapshot_body_bytes, unfinished, staged_snapshot_events: _events, ...removedByRetention } = retained;
    metrics?.countPurge({ removed: { ...purged, ...removedByRetention }, snapshotBodyBytes: snapshot_body_bytes, unfinished });
  });
