/**
 * `@dc/client/snapshots`: sending a campaign's snapshot and waiting for its
 * outcome. Rows are checked before any upload with the domain's own rules,
 * so this entry loads `@dc/domain` (and with it `effect`): install
 * `@dc/domain` beside the client to use it. The main entry `@dc/client`
 * needs neither.
 */
export { planChunks } from "./chunks.ts";
export type { Chunk, ChunkLimits } from "./chunks.ts";
export { MAX_LISTED_ROW_ERRORS, prevalidateSnapshot, snapshotRowErrors } from "./prevalidate.ts";
export { getSnapshot, sendSnapshot, submitSnapshot, uploadSnapshot } from "./upload.ts";
export type {
  SendOptions,
  SnapshotAcknowledgement,
  SnapshotChunkAcknowledgement,
  SnapshotRow,
  SnapshotTarget,
} from "./upload.ts";
export { SnapshotWaitTimeout, waitForSnapshot } from "./wait.ts";
export type { WaitOptions } from "./wait.ts";
