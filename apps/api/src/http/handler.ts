/** The typed shape of an operation's handler, derived from its contract declaration. */
import type { Endpoint, Endpoints, OperationId } from "@dc/contract";
import type { DbTransaction } from "@dc/db";
import type { Context } from "koa";
import type { Principal } from "../auth/bearer.ts";
import type { AppServices } from "../services.ts";

export interface Reply<Success> {
  /** Defaults to the endpoint's declared success status. */
  readonly status?: number;
  readonly body: Success;
  readonly headers?: Readonly<Record<string, string>>;
  /** An identical replay of an already accepted decision: not counted against the rate limit. */
  readonly replay?: boolean;
  /** Sent instead of `body` for one of the operation's declared `documentReplies` (its status and media type). */
  readonly document?: { readonly contentType: string; readonly bytes: Uint8Array };
}

export interface HandlerInput<Params, Query, Body, Authenticated extends boolean> {
  readonly params: Params;
  readonly query: Query;
  readonly body: Body;
  /** The raw request body bytes (empty when the operation takes no body). */
  readonly rawBody: Buffer;
  readonly principal: Authenticated extends true ? Principal : undefined;
  readonly services: AppServices;
  /** Koa's context, for the few handlers that need headers or the remote address. */
  readonly ctx: Context;
  /**
   * Runs the operation's write in a transaction. An operation that takes an
   * `Idempotency-Key` must write through this, returning its reply from
   * `work`: the key is claimed and the reply recorded in the same
   * transaction (docs/decisions/0024).
   */
  readonly transaction: <R extends Reply<unknown>>(work: (trx: DbTransaction) => Promise<R>) => Promise<R>;
}

export type HandlerOf<E> =
  E extends Endpoint<infer Params, infer Query, infer Body, infer Success, infer RequiredScope>
    ? (input: HandlerInput<Params, Query, Body, RequiredScope extends null ? false : true>) => Promise<Reply<Success>>
    : never;

/** One handler per operation of the contract: a missing one does not compile. */
export type Handlers = { readonly [K in OperationId]: HandlerOf<Endpoints[K]> };
