/**
 * Splitting a snapshot's rows into chunk bodies that each fit the api's
 * limits (contract 8: 20,000 rows and 10 MiB per body). The split depends
 * only on the rows, so a retry or a resumed upload sends byte-identical
 * chunks (which the api accepts again with 200) and never a conflicting one.
 */
import { Snapshot } from "@dc/domain";
import { DebtCollectionError } from "../errors.ts";

export interface ChunkLimits {
  /** Rows per chunk (default and maximum 20,000). */
  readonly maxRows?: number;
  /** Bytes per chunk body, UTF-8 (default and maximum 10 MiB). */
  readonly maxBytes?: number;
}

/** One chunk: its rows, its exact body text and where its rows start in the snapshot. */
export interface Chunk<Row> {
  readonly firstRowIndex: number;
  readonly rows: ReadonlyArray<Row>;
  /** `{"rows":[...]}` exactly as sent (the api hashes these bytes). */
  readonly body: string;
  readonly bytes: number;
}

const encoder = new TextEncoder();
const OPEN = '{"rows":[';
const CLOSE = "]}";

/**
 * Chunks of `rows` in order, each as large as the limits allow. A single row
 * too large for an empty chunk is refused the way the api would (413
 * `payload_too_large`). `firstRowIndex` numbers the rows of a resumed upload.
 */
export const planChunks = <Row>(rows: ReadonlyArray<Row>, limits: ChunkLimits = {}, firstRowIndex = 0): Array<Chunk<Row>> => {
  const maxRows = Math.min(limits.maxRows ?? Snapshot.MAX_ROWS, Snapshot.MAX_ROWS);
  const maxBytes = Math.min(limits.maxBytes ?? Snapshot.MAX_BODY_BYTES, Snapshot.MAX_BODY_BYTES);
  const frame = OPEN.length + CLOSE.length;
  const chunks: Array<Chunk<Row>> = [];
  let start = 0;
  let parts: Array<string> = [];
  let bytes = frame;

  const close = (end: number) => {
    const body = `${OPEN}${parts.join(",")}${CLOSE}`;
    chunks.push({ firstRowIndex: firstRowIndex + start, rows: rows.slice(start, end), body, bytes });
    start = end;
    parts = [];
    bytes = frame;
  };

  rows.forEach((row, index) => {
    // JSON.stringify of an array writes `null` for an undefined element; so must this.
    const text = JSON.stringify(row) ?? "null";
    const size = encoder.encode(text).byteLength;
    const separator = parts.length === 0 ? 0 : 1;
    if (frame + size > maxBytes) {
      throw new DebtCollectionError({
        kind: "api",
        status: 413,
        message: `Request body too large: row ${firstRowIndex + index} alone takes ${size} bytes; the limit is ${maxBytes} bytes`,
        code: 413,
        errorCode: "payload_too_large",
      });
    }
    if (parts.length === maxRows || bytes + separator + size > maxBytes) close(index);
    bytes += (parts.length === 0 ? 0 : 1) + size;
    parts.push(text);
  });
  if (parts.length > 0) close(rows.length);
  return chunks;
};
