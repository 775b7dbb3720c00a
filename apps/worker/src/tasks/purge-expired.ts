/**
 * `purge_expired`: deletes credentials and counters that can no longer be
 * used, then what the retention settings no longer keep (retention.ts).
 * Tokens and codes stay one day past expiry, so a client presenting one
 * just after it lapsed still meets a row (and the precise error), not silence.
 */
import { Schema } from "effect";
import type { Task } from "graphile-worker";
import type { Kysely } from "kysely";
import type { Database } from "@dc/db";
import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import { defineTask } from "../define-task.ts";
import type { WorkerMetrics } from "../observability/metrics.ts";
import { DEFAULT_RETENTION, purgeRetained, type RetentionSettings } from "../retention.ts";

/** The task's identifier in graphile-worker. */
export const PURGE_EXPIRED = "purge_expired";

const GRACE_MS = 24 * 60 * 60 * 1000;

/** Rows deleted by one purge, per table. */
export interface PurgeCounts {
  readonly oauth_access_tokens: number;
  readonly oauth_refresh_tokens: number;
  readonly oauth_authorization_codes: number;
  readonly rate_limit_counters: number;
  readonly oauth_grants: number;
  readonly oauth_login_sessions: number;
}

/**
 * Deletes, one set-based statement per table, everything expired as of `now`:
 * access and refresh tokens and authorization codes expired more than a day
 * before `now`, rate-limit counters whose `expires_at` is before `now`, and
 * grants older than a day that have no token or code left, and consent-page
 * login sessions past their absolute expiry. Safe to run
 * concurrently and repeatedly.
 */
export const purgeExpired = async (db: Kysely<Database>, now: Date): Promise<PurgeCounts> => {
  const cutoff = new Date(now.getTime() - GRACE_MS);
  const accessTokens = await db.deleteFrom("oauth_access_tokens").where("expires_at", "<", cutoff).executeTakeFirst();
  const refreshTokens = await db.deleteFrom("oauth_refresh_tokens").where("expires_at", "<", cutoff).executeTakeFirst();
  const codes = await db.deleteFrom("oauth_authorization_codes").where("expires_at", "<", cutoff).executeTakeFirst();
  const counters = await db.deleteFrom("rate_limit_counters").where("expires_at", "<", now).executeTakeFirst();
  const sessions = await db.deleteFrom("oauth_login_sessions").where("expires_at", "<", now).executeTakeFirst();
  // After the tokens and codes, so a grant whose last token was purged above goes in the same run.
  const grants = await db
    .deleteFrom("oauth_grants as g")
    .where("g.created_at", "<", cutoff)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom("oauth_access_tokens as t").select("t.id").whereRef("t.grant_id", "=", "g.id"))),
    )
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom("oauth_refresh_tokens as t").select("t.id").whereRef("t.grant_id", "=", "g.id"))),
    )
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom("oauth_authorization_codes as c").select("c.id").whereRef("c.grant_id", "=", "g.id"))),
    )
    .executeTakeFirst();
  return {
    oauth_access_tokens: Number(accessTokens.numDeletedRows),
    oauth_refresh_tokens: Number(refreshTokens.numDeletedRows),
    oauth_authorization_codes: Number(codes.numDeletedRows),
    rate_limit_counters: Number(counters.numDeletedRows),
    oauth_grants: Number(grants.numDeletedRows),
    oauth_login_sessions: Number(sessions.numDeletedRows),
  };
};

/** Cron adds `_cron` ({ ts, backfilled }) to the jobs it schedules; nothing else is accepted. */
export const PurgeExpiredPayload = Schema.Union(
  Schema.Undefined,
  Schema.Null,
  Schema.Struct({
    _cron: Schema.optional(Schema.Struct({ ts: Schema.String, backfilled: Schema.optional(Schema.Boolean) })),
  }),
);

/** Dependencies of the `purge_expired` task. */
export interface PurgeExpiredDependencies {
  readonly db: Kysely<Database>;
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
