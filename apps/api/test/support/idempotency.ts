/**
 * What the Idempotency-Key tests share (docs/decisions/0024): a key held
 * claimed by a test transaction, as a concurrent request in its keyed write
 * would hold it (requests with the same key wait on it until `release`
 * commits a recorded answer, `{"held":true}` with status 201, or rolls the
 * claim back); the wait for a request to block on a claim; the api's digest
 * of a request; and a count of debts by debtor name.
 */
import { createHash } from "node:crypto";
import type { Database } from "@dc/db";
import { type Kysely, sql } from "kysely";

class RolledBackByTheTest extends Error {}

export interface HeldClaim {
  /** Ends the holding transaction: `true` commits the answer, `false` rolls the claim back. */
  readonly release: (commit: boolean) => void;
  /** Settles once the holding transaction has ended. */
  readonly done: Promise<void>;
}

/** Claims `key` of company `companyId` for createDebt at `at`; resolves once the claim is in place. */
export const holdClaim = async (
  db: Kysely<Database>,
  claim: {
    readonly companyId: number;
    readonly key: string;
    readonly requestSha256: Buffer;
    readonly at: Date;
    /** The operation the claim is for; `createDebt` unless said. */
    readonly operation?: string;
  },
): Promise<HeldClaim> => {
  let release: (commit: boolean) => void = () => {};
  const ended = new Promise<boolean>((resolve) => (release = resolve));
  let claimed: () => void = () => {};
  const inPlace = new Promise<void>((resolve) => (claimed = resolve));
  const { companyId, key, requestSha256, at, operation = "createDebt" } = claim;
  const done = db
    .transaction()
    .execute(async (trx) => {
      await sql`insert into idempotency_keys (company_id, idempotency_key, operation, request_sha256, created_at, expires_at)
        values (${companyId}, ${key}, ${operation}, ${requestSha256}, ${at.toISOString()}::timestamptz,
          ${new Date(at.getTime() + 86_400_000).toISOString()}::timestamptz)`.execute(trx);
      claimed();
      if (!(await ended)) throw new RolledBackByTheTest();
      await sql`update idempotency_keys set response_status = 201, response_body = '{"held":true}',
        response_headers = '{}' where company_id = ${companyId} and idempotency_key = ${key}`.execute(trx);
    })
    .catch((error: unknown) => {
      if (!(error instanceof RolledBackByTheTest)) throw error;
    });
  await Promise.race([inPlace, done]);
  return { release, done };
};

/**
 * Polls until some backend waits on a lock while claiming a key; `waiting`
 * then resolves `"waiting"`, or `"stopped"` once `stop` was called.
 */
export const waitForAClaimer = (db: Kysely<Database>) => {
  let stopped = false;
  const waiting = (async () => {
    while (!stopped) {
      const { rows } = await sql<{ n: number }>`
        select count(*)::int4 as n from pg_stat_activity
        where wait_event_type = 'Lock' and query like '%insert into idempotency_keys%'`.execute(db);
      if ((rows[0]?.n ?? 0) > 0) return "waiting" as const;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return "stopped" as const;
  })();
  return { waiting, stop: () => (stopped = true) };
};

/** The digest the api keeps of a request of `operation` without path parameters or query. */
export const requestDigestOf = (operation: string, body: string): Buffer =>
  createHash("sha256").update(`${operation}\n{}\n\n`).update(body).digest();

/** Debts whose debtor's last name is `lastname`. */
export const debtsNamed = async (db: Kysely<Database>, lastname: string): Promise<number> =>
  Number(
    (
      await db
        .selectFrom("debts")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("lastname", "=", lastname)
        .executeTakeFirstOrThrow()
    ).n,
  );
