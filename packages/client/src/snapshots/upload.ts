/**
 * Sending a campaign's snapshot: in one request when it fits one body, else
 * staged (start, chunks in order, finalize). Every step is idempotent on the
 * api's side, so the staged upload is resumable: it reads the snapshot's
 * status first and continues from `next_chunk_index`, whether the previous
 * attempt failed a second ago (inside this call) or in another process.
 */
import { retrySettingsOf, type DebtCollectionClient } from "../client.ts";
import { DebtCollectionError, type ClientError } from "../errors.ts";
import { waitUnlessAborted } from "../retry.ts";
import type { components } from "../generated/openapi.ts";
import { planChunks, type Chunk, type ChunkLimits } from "./chunks.ts";
import { prevalidateSnapshot } from "./prevalidate.ts";

export type SnapshotRow = components["schemas"]["SnapshotRow"];
export type SnapshotAcknowledgement = components["schemas"]["SnapshotAcknowledgement"];
export type SnapshotChunkAcknowledgement = components["schemas"]["SnapshotChunkAcknowledgement"];

export interface SnapshotTarget {
  /** The campaign's API reference. */
  readonly campaign: string;
  /** Your stable reference of this content (an export id or a UUID, never a date alone). */
  readonly reference: string;
}

export interface SendOptions extends SnapshotTarget, ChunkLimits {
  readonly rows: ReadonlyArray<SnapshotRow>;
  /** Check the rows with the api's rules before sending (default true). */
  readonly validate?: boolean;
  /** Called after each accepted chunk of a staged upload. */
  readonly onChunk?: (ack: SnapshotChunkAcknowledgement) => void;
  /**
   * Times a staged upload re-reads the status and continues after a failure
   * that may pass (network, 429, 503), on top of the client's own retries
   * (default 2). A `Retry-After` of the failure is waited out first, unless
   * it is longer than the retry policy's `maxRetryAfterSeconds`: then the
   * upload fails at once.
   */
  readonly resumeAttempts?: number;
  /** Ends every request and wait of the call when it aborts (`AbortSignal.timeout(ms)` for a deadline); never resumed after. */
  readonly signal?: AbortSignal;
}

const snapshotPath = "/external-api/v1/campaigns/{apiReference}/snapshots/{snapshotReference}" as const;

const check = <T>(result: { readonly data?: T; readonly error?: ClientError }): T => {
  if (result.error !== undefined) throw new DebtCollectionError(result.error);
  return result.data as T;
};

const prevalidate = (options: SendOptions) => {
  if (options.validate === false) return;
  const problem = prevalidateSnapshot(options.rows);
  if (problem !== undefined) throw new DebtCollectionError(problem);
};

const pathOf = (target: SnapshotTarget) => ({ apiReference: target.campaign, snapshotReference: target.reference });

const signalOf = (options: { readonly signal?: AbortSignal | undefined }) => (options.signal === undefined ? {} : { signal: options.signal });

/** The snapshot's current state, or `undefined` when the reference is unknown in the campaign. */
export const getSnapshot = async (
  client: DebtCollectionClient,
  target: SnapshotTarget,
  waitSeconds?: number,
): Promise<SnapshotAcknowledgement | undefined> => (await readSnapshotStatus(client, target, waitSeconds))?.status;

/**
 * The status, and whether the api honoured `waitSeconds` (`Prefer: wait`):
 * then a `pending` or `processing` answer means the seconds passed.
 */
export const readSnapshotStatus = async (
  client: DebtCollectionClient,
  target: SnapshotTarget & { readonly signal?: AbortSignal | undefined },
  waitSeconds?: number,
): Promise<{ readonly status: SnapshotAcknowledgement; readonly waited: boolean } | undefined> => {
  const result = await client.GET(snapshotPath, {
    params: { path: pathOf(target), ...(waitSeconds === undefined ? {} : { header: { Prefer: `wait=${waitSeconds}` } }) },
    ...signalOf(target),
  });
  if (result.error?.kind === "api" && result.error.status === 404 && result.error.message === "Snapshot not found") return undefined;
  const status = check(result).data;
  return { status, waited: result.response?.headers.get("preference-applied")?.startsWith("wait=") === true };
};

const submitChunk = async (client: DebtCollectionClient, options: SendOptions, chunk: Chunk<SnapshotRow> | undefined) => {
  const body = chunk?.body ?? '{"rows":[]}';
  const result = await client.PUT(snapshotPath, {
    params: { path: pathOf(options) },
    body: { rows: [...(chunk?.rows ?? [])] },
    bodySerializer: () => body,
    ...signalOf(options),
  });
  return check(result).data;
};

/**
 * One-request submit (at most 20,000 rows and 10 MiB): `pending` on success.
 * An identical retry is safe (the client retries this PUT by itself).
 */
export const submitSnapshot = async (client: DebtCollectionClient, options: SendOptions): Promise<SnapshotAcknowledgement> => {
  prevalidate(options);
  const [chunk, ...rest] = planChunks(options.rows, options);
  if (rest.length > 0) throw new RangeError("the rows do not fit one request: use uploadSnapshot (staged)");
  return submitChunk(client, options, chunk);
};

const sendChunk = async (client: DebtCollectionClient, options: SendOptions, index: number, chunk: Chunk<SnapshotRow>) => {
  const result = await client.PUT(`${snapshotPath}/chunks/{chunkIndex}`, {
    params: { path: { ...pathOf(options), chunkIndex: index } },
    body: { rows: [...chunk.rows] },
    bodySerializer: () => chunk.body,
    ...signalOf(options),
  });
  return check(result).data;
};

const stagedOnce = async (client: DebtCollectionClient, options: SendOptions): Promise<SnapshotAcknowledgement> => {
  const path = pathOf(options);
  let state = (await readSnapshotStatus(client, options))?.status;
  if (state === undefined || state.delivery_mode !== "staged" || state.expected_row_count !== options.rows.length) {
    // Also the way to surface the api's own 409 when the reference holds other content.
    const started = await client.POST(`${snapshotPath}/start`, {
      params: { path },
      body: { expected_row_count: options.rows.length },
      ...signalOf(options),
    });
    state = check(started).data;
  }
  if (state.status !== "uploading") return state;
  // Accepted chunks are contiguous: the rest starts at received_row_count, numbered from next_chunk_index.
  const remaining = planChunks(options.rows.slice(state.received_row_count), options, state.received_row_count);
  for (const [offset, chunk] of remaining.entries()) {
    const ack = await sendChunk(client, options, state.next_chunk_index + offset, chunk);
    options.onChunk?.(ack);
  }
  return check(await client.POST(`${snapshotPath}/finalize`, { params: { path }, ...signalOf(options) })).data;
};

const mayPass = (error: ClientError): boolean =>
  error.kind === "network" || error.kind === "rate_limited" || (error.kind === "api" && error.status === 503);

/** The seconds a 429 or 503 asked to wait (`Retry-After`), or null. */
const retryAfterOf = (error: ClientError): number | null =>
  error.kind === "rate_limited" ? error.retryAfterSeconds : error.kind === "api" ? (error.retryAfterSeconds ?? null) : null;

/**
 * Staged upload: start (declaring the row count), the chunks in order, then
 * finalize; `pending` on success. Calling it again with the same rows and
 * reference resumes where the last attempt stopped, unless the upload sat
 * unfinished past the service's expiry (7 days by default, docs/decisions/0022):
 * then it resolves with the `failed` acknowledgement (failure code
 * `snapshot_expired`) and sends nothing, and the rows must go under a new
 * reference. An expiry that lands during a call rejects it with the api's
 * 409 `snapshot_expired` (`DebtCollectionError`, `errorCode`).
 * Before resuming after a 429 or 503 it waits the answer's `Retry-After`
 * (the start and the finalize are POSTs, which the transport never retries;
 * a chunk's PUT comes here once the transport's own retries are spent); a
 * `Retry-After` longer than the policy's `maxRetryAfterSeconds` fails the
 * call at once instead, and `signal` ends the wait.
 */
export const uploadSnapshot = async (client: DebtCollectionClient, options: SendOptions): Promise<SnapshotAcknowledgement> => {
  prevalidate(options);
  const { policy, sleep } = retrySettingsOf(client);
  for (let attempt = 0; ; attempt++) {
    try {
      return await stagedOnce(client, options);
    } catch (thrown) {
      const again =
        thrown instanceof DebtCollectionError &&
        mayPass(thrown.error) &&
        attempt < (options.resumeAttempts ?? 2) &&
        options.signal?.aborted !== true;
      if (!again) throw thrown;
      const waitSeconds = retryAfterOf(thrown.error);
      if (waitSeconds !== null && waitSeconds > policy.maxRetryAfterSeconds) throw thrown;
      if (waitSeconds !== null && waitSeconds > 0) await waitUnlessAborted(sleep, waitSeconds * 1000, options.signal);
    }
  }
};

/**
 * Sends a snapshot the cheapest way: one request when the rows fit one body,
 * staged otherwise (the choice depends only on the rows, so a retry makes the
 * same one). Resolves with the acknowledgement (`pending`, or the settled
 * state of an identical earlier snapshot); follow it with `waitForSnapshot`.
 */
export const sendSnapshot = async (client: DebtCollectionClient, options: SendOptions): Promise<SnapshotAcknowledgement> => {
  prevalidate(options);
  const chunks = planChunks(options.rows, options);
  return chunks.length <= 1 ? submitChunk(client, options, chunks[0]) : uploadSnapshot(client, { ...options, validate: false });
};
