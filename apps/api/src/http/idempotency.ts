/**
 * `Idempotency-Key` on the creating operations (docs/decisions/0024). The
 * router reads the key; a key already answered is answered again from its
 * record, before the handler runs. Otherwise the handler runs its write
 * through `KeyedWrites.transaction`, which claims the key first (a
 * concurrent request with the same key waits there for this one's commit)
 * and records the answer last, in the same transaction: the key and the
 * write commit together or not at all.
 */
import { createHash } from "node:crypto";
import { idempotencyKeyHeader, idempotentReplayedHeader } from "@dc/contract";
import {
  claimIdempotencyKey,
  type Db, type DbTransaction,
  findRecordedAnswer,
  type KeyedRequest,
  recordAnswer,
  type RecordedAnswer,
} from "@dc/db";
import { IdempotencyKey } from "@dc/domain";
import type { Context } from "koa";
import type { Clock } from "@dc/runtime";
import { IdempotencyKeyReused, ServiceUnavailable, ValidationFailed } from "./api-error.ts";
import type { Reply } from "./handler.ts";

const HOUR_MS = 60 * 60 * 1000;

/**
 * The key the request sent, or `undefined` when it sent none. A header sent
 * twice, or a value that is not a key, is a 400 naming the header.
 */
export const readIdempotencyKey = (ctx: Context): string | undefined => {
  const values = ctx.req.headersDistinct[idempotencyKeyHeader.name.toLowerCase()];
  if (values === undefined) return undefined;
  const key = values.length === 1 ? IdempotencyKey.parse(values[0]!) : undefined;
  if (key === undefined) {
    throw new ValidationFailed({
      details: {
        [idempotencyKeyHeader.name]: values.length === 1 ? IdempotencyKey.requirement : "must be sent once",
      },
    });
  }
  return key;
};

/** What makes two requests "the same request": the operation, its path parameters, its query and its body bytes. */
export const requestDigest = (operation: string, ctx: Context, rawBody: Buffer): Buffer =>
  createHash("sha256")
    .update(`${operation}\n${JSON.stringify(ctx.params ?? {})}\n${ctx.querystring}\n`)
    .update(rawBody)
    .digest();

/** The recorded answer to give again, from `findRecordedAnswer`. */
export type Replay = Pick<RecordedAnswer, "status" | "body" | "headers">;

/**
 * The answer recorded under the request's key, to be given again; undefined
 * when none is recorded. Throws `IdempotencyKeyReused` when the key was
 * recorded with another request.
 */
export const recordedReplay = async (
  db: Db,
  request: KeyedRequest,
  now: Date,
): Promise<Replay | undefined> => {
  const recorded = await findRecordedAnswer(db, request.companyId, request.key, now);
  if (recorded === undefined) return undefined;
  if (recorded.operation !== request.operation || !recorded.requestSha256.equals(request.requestSha256)) {
    throw new IdempotencyKeyReused();
  }
  return {
    status: recorded.status,
    body: recorded.body,
    headers: { ...recorded.headers, [idempotentReplayedHeader.name]: "true" },
  };
};

/** Unwinds a handler whose keyed write found its key answered meanwhile: the router sends `replay`. */
export class ReplayInstead extends Error {
  readonly replay: Replay;

  constructor(replay: Replay) {
    super("answered from the idempotency key's record");
    this.replay = replay;
  }
}

/** Thrown out of a keyed transaction whose key another request's commit took meanwhile. */
class KeyTakenMeanwhile extends Error {
  constructor() {
    super("the idempotency key was recorded by a concurrent request");
  }
}

/** The write transactions of one request (`keyedWrites`). */
export interface KeyedWrites {
  /**
   * Runs `work` in a transaction and returns its reply. With a key taken by a
   * concurrent request meanwhile, nothing of `work` is kept and
   * `ReplayInstead` carries the recorded answer out.
   */
  readonly transaction: <R extends Reply<unknown>>(work: (trx: DbTransaction) => Promise<R>) => Promise<R>;
  /** The JSON text recorded as the answer, once a keyed transaction committed. */
  readonly recordedBody: () => string | undefined;
}

/**
 * The write transactions of one request. With a key, `transaction` claims it
 * before `work` and records `work`'s answer (encoded by `encode`, and kept
 * as `recordedBody`, so it is sent exactly as recorded) after it.
 */
export const keyedWrites = (
  db: Db,
  clock: Clock,
  request: KeyedRequest | undefined,
  encode: (body: unknown) => string | undefined,
  successStatus: number,
): KeyedWrites => {
  let recordedBody: string | undefined;
  const transaction = async <R extends Reply<unknown>>(
    work: (trx: DbTransaction) => Promise<R>,
  ): Promise<R> => {
    if (request === undefined) return db.transaction().execute(work);
    try {
      return await db.transaction().execute(async (trx) => {
        const now = clock.now();
        const expiresAt = new Date(now.getTime() + IdempotencyKey.retentionHours * HOUR_MS);
        if (!(await claimIdempotencyKey(trx, request, now, expiresAt))) throw new KeyTakenMeanwhile();
        const reply = await work(trx);
        const body = encode(reply.body) ?? "";
        await recordAnswer(trx, request.companyId, request.key, {
          status: reply.status ?? successStatus,
          body,
          headers: reply.headers ?? {},
        });
        recordedBody = body;
        return reply;
      });
    } catch (error) {
      if (!(error instanceof KeyTakenMeanwhile)) throw error;
      const replay = await recordedReplay(db, request, clock.now());
      // Recorded a moment ago and already expired: only a clock at the edge of the retention gets here.
      if (replay === undefined) throw new ServiceUnavailable();
      throw new ReplayInstead(replay);
    }
  };
  return { transaction, recordedBody: () => recordedBody };
};
