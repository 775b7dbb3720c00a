/**
 * Counting failed authentications (client secrets at the token endpoint,
 * passwords on the consent page) in fixed windows of the shared
 * `rate_limit_counters` table, so every api process sees the same counts.
 * Time comes from the clock service. Limits and why: docs/decisions/0203.
 */
import { createHash } from "node:crypto";
import { type Db, findCounter, incrementCounter, refundRateLimit } from "@dc/db";
import { fixedWindow } from "../http/rate-limit.ts";
import type { AppServices } from "../services.ts";

export interface FailureRule {
  /** Names the rule in the counter key. */
  readonly name: string;
  /** Failures tolerated in one window; the next one is refused. */
  readonly limit: number;
  readonly windowSeconds: number;
}

const FIFTEEN_MINUTES = 15 * 60;

export const failureRules = {
  clientPerId: { name: "oauth-client-auth-failures:client", limit: 10, windowSeconds: FIFTEEN_MINUTES },
  clientPerAddress: { name: "oauth-client-auth-failures:address", limit: 30, windowSeconds: FIFTEEN_MINUTES },
  signInPerAccount: { name: "oauth-sign-in-failures:account", limit: 10, windowSeconds: FIFTEEN_MINUTES },
  signInPerAddress: { name: "oauth-sign-in-failures:address", limit: 30, windowSeconds: FIFTEEN_MINUTES },
  /** The debtor page's identity check (docs/decisions/0671). */
  debtorCheckPerLink: { name: "debtor-check-failures:link", limit: 5, windowSeconds: FIFTEEN_MINUTES },
  debtorCheckPerAddress: { name: "debtor-check-failures:address", limit: 20, windowSeconds: FIFTEEN_MINUTES },
} as const satisfies Record<string, FailureRule>;

/** One rule applied to one subject (a client id, an address, an account). */
export interface FailureSubject {
  readonly rule: FailureRule;
  readonly subject: string;
}

export interface FailureCount {
  readonly subject: FailureSubject;
  readonly count: number;
  readonly retryAfterSeconds: number;
}

/**
 * A subject as it goes into a key: short well-formed values as they are,
 * anything else (long or odd client ids, e-mail addresses) as a hash, so a
 * caller cannot grow keys without bound and no personal data is stored.
 */
export const subjectKey = (value: string, alwaysHash = false): string =>
  !alwaysHash && /^[A-Za-z0-9_.:-]{1,64}$/.test(value)
    ? value
    : `sha256:${createHash("sha256").update(value, "utf8").digest("hex").slice(0, 32)}`;

const windowOf = (rule: FailureRule, now: Date) => fixedWindow(now, rule.windowSeconds);

const keyOf = ({ rule, subject }: FailureSubject) => `${rule.name}:${subject}`;

const retryAfter = (rule: FailureRule, now: Date) => windowOf(rule, now).secondsLeft;

/**
 * The first subject that has already used up its window, with the seconds
 * until the window ends; undefined when none has.
 */
export const exhaustedSubject = async (
  services: AppServices,
  subjects: ReadonlyArray<FailureSubject>,
): Promise<FailureCount | undefined> => {
  const now = services.clock.now();
  for (const subject of subjects) {
    const count = await findCounter(services.db, { key: keyOf(subject), windowStart: windowOf(subject.rule, now).start });
    if (count !== undefined && count >= subject.rule.limit) {
      return { subject, count, retryAfterSeconds: retryAfter(subject.rule, now) };
    }
  }
  return undefined;
};

const increment = async (db: Db, subject: FailureSubject, now: Date): Promise<number> => {
  const window = windowOf(subject.rule, now);
  // One statement, so concurrent failures in any process never lose a count.
  return incrementCounter(db, { key: keyOf(subject), windowStart: window.start, expiresAt: window.end });
};

const countAt = async (
  db: Db,
  subjects: ReadonlyArray<FailureSubject>,
  now: Date,
): Promise<ReadonlyArray<FailureCount>> => {
  const counts: FailureCount[] = [];
  for (const subject of subjects) {
    counts.push({ subject, count: await increment(db, subject, now), retryAfterSeconds: retryAfter(subject.rule, now) });
  }
  return counts;
};

/** Records one failure against every subject and returns the counts after it. */
export const recordFailure = (
  services: AppServices,
  subjects: ReadonlyArray<FailureSubject>,
): Promise<ReadonlyArray<FailureCount>> => countAt(services.db, subjects, services.clock.now());

/** An attempt counted before it is checked (`reserveAttempt`). */
export interface ReservedAttempt {
  /** The counts with this attempt included. */
  readonly counts: ReadonlyArray<FailureCount>;
  /** Takes the attempt back from every count, in the windows it was counted in. */
  readonly release: () => Promise<void>;
}

/**
 * Counts an attempt against every subject before the secret is checked, so
 * attempts sent at the same time cannot all pass a limit that only finished
 * failures would reach (docs/decisions/0203). The caller releases
 * the attempt when it succeeds, or when `overLimit(counts)` refuses it
 * unchecked; a failed attempt stays counted as the failure it is.
 */
export const reserveAttempt = async (
  services: AppServices,
  subjects: ReadonlyArray<FailureSubject>,
): Promise<ReservedAttempt> => {
  const now = services.clock.now();
  const counts = await countAt(services.db, subjects, now);
  const release = async () => {
    for (const subject of subjects) {
      await refundRateLimit(services.db, { key: keyOf(subject), windowStart: windowOf(subject.rule, now).start });
    }
  };
  return { counts, release };
};

/** The longest wait among the counts that went over their limit, or undefined. */
export const overLimit = (counts: ReadonlyArray<FailureCount>): number | undefined => {
  const over = counts.filter((count) => count.count > count.subject.rule.limit);
  return over.length === 0 ? undefined : Math.max(...over.map((count) => count.retryAfterSeconds));
};
