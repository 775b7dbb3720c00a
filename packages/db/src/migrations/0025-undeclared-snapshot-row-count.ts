/**
 * A staged snapshot may be opened by its chunk 0 without a start request
 * (contract 3.4, docs/decisions/0580): its row count is then undeclared
 * (`expected_row_count` null) until a start or the finalization declares it.
 * Only a staged snapshot still `uploading` may lack it: a one-request snapshot
 * counts its rows on arrival, and finalization always sets it.
 */
import { type Kysely, sql } from "kysely";

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`alter table snapshots alter column expected_row_count drop not null`.execute(db);
  await sql`
    alter table snapshots add constraint snapshots_row_count_declared
    check (expected_row_count is not null or (delivery_mode = 'staged' and status in ('uploading', 'failed')))
  `.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`alter table snapshots drop constraint if exists snapshots_row_count_declared`.execute(db);
  // An undeclared count becomes the rows received, the count its finalization would declare.
  await sql`
    alter table snapshots
      alter column expected_row_count type integer using coalesce(expected_row_count, received_row_count),
      alter column expected_row_count set not null
  `.execute(db);
};
