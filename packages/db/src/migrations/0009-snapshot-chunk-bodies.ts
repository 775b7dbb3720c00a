/**
 * Snapshot chunks keep the request body exactly as received (docs/decisions/0360):
 *
 * - `body text` replaces `rows jsonb`. The api validated the JSON before
 *   storing it, so PostgreSQL does not parse it again (storing 20,000 rows as
 *   jsonb cost ~50 ms of the submit), and the worker reads the bytes back and
 *   parses them once, instead of PostgreSQL printing jsonb back to text.
 * - `storage external`: out of line, uncompressed. A chunk lives until its
 *   snapshot is purged; compressing a 3 MB body cost ~10 ms on every write
 *   and read for space that is given back soon anyway.
 *
 * - `internal_ids` and `invoice_references`: each row's two identity keys,
 *   in row order, written with the chunk. The rules across the chunks of a
 *   staged snapshot (checked at finalize) read these arrays instead of
 *   parsing every body again (a 100,000-row snapshot: ~300 ms of JSON
 *   parsing in PostgreSQL).
 *
 * Existing chunks are rewritten as `{"rows": ...}` (their original bytes
 * were not kept before this migration).
 */
import { type Kysely, sql } from "kysely";

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
alter table snapshot_chunks add column body text;
alter table snapshot_chunks alter column body set storage external;
alter table snapshot_chunks add column internal_ids text[];
alter table snapshot_chunks add column invoice_references text[];
update snapshot_chunks set
  body = jsonb_build_object('rows', rows)::text,
  internal_ids = array(select e ->> 'internal_id' from jsonb_array_elements(rows) with ordinality as r(e, n) order by n),
  invoice_references = array(select e ->> 'invoice_reference' from jsonb_array_elements(rows) with ordinality as r(e, n) order by n);
alter table snapshot_chunks alter column body set not null;
alter table snapshot_chunks alter column internal_ids set not null;
alter table snapshot_chunks alter column invoice_references set not null;
alter table snapshot_chunks add constraint snapshot_chunks_identities_per_row
  check (cardinality(internal_ids) = row_count and cardinality(invoice_references) = row_count);
alter table snapshot_chunks drop column rows;
`.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
alter table snapshot_chunks add column rows jsonb;
update snapshot_chunks set rows = (body::jsonb) -> 'rows';
alter table snapshot_chunks alter column rows set not null;
alter table snapshot_chunks drop column body, drop column internal_ids, drop column invoice_references;
`.execute(db);
};
