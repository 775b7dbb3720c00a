/**
 * `findCrossRowErrors` reports over stored chunks exactly what the domain's
 * `Snapshot.checkAcrossRows` reports over the same rows (the reference
 * semantics), with rows that have neither key reported as the finalize
 * route always did: a property over random small snapshots whose
 * identities are drawn from a tiny alphabet, so that duplicates, mixed
 * streams, missing identities and shared invoice references are common;
 * then each rule by example, with its exact message.
 */
import { createHash } from "node:crypto";
import { Snapshot } from "@dc/domain";
import fc from "fast-check";
import { type Kysely, sql } from "kysely";
import { describe, expect, it } from "vitest";
import { findCrossRowErrors } from "../src/queries/snapshots/cross-row-errors.ts";
import { insertChunkUnlessExists } from "../src/queries/snapshots/insert-chunk.ts";
import type { Database } from "../src/schema.ts";
import { useTestDatabase } from "../../testing/index.ts";

const { db } = await useTestDatabase();

/** A stored row's two identity keys (`null` when absent). */
interface Keys {
  readonly internal_id: string | null;
  readonly invoice_reference: string | null;
}

const { rows: seeded } = await sql<{ company_id: number; campaign_id: number }>`
  with company as (insert into companies (name) values ('Cross rows') returning id),
  creditor as (insert into creditors (company_id, name) select id, 'C' from company returning id, company_id),
  timeline as (insert into timelines (company_id, name) select id, 'T' from company returning id)
  insert into campaigns (company_id, api_reference, name, creditor_id, timeline_id)
  select creditor.company_id, 'cross-rows', 'Cross rows', creditor.id, timeline.id from creditor, timeline
  returning company_id, id as campaign_id`.execute(db);
const companyId = Number(seeded[0]?.company_id);
const campaignId = Number(seeded[0]?.campaign_id);
let snapshots = 0;

/** Stores a staged snapshot with these chunks, through the chunk insert the api uses. */
const storeSnapshot = async (
  chunks: ReadonlyArray<ReadonlyArray<Keys>>,
  executor: Kysely<Database> = db,
): Promise<{ companyId: number; id: number }> => {
  snapshots += 1;
  const rowCount = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  const { rows } = await sql<{ id: number }>`
    insert into snapshots (company_id, campaign_id, snapshot_reference, delivery_mode, status, expected_row_count)
    values (${companyId}, ${campaignId}, ${`staged-${snapshots}`}, 'staged', 'uploading', ${rowCount})
    returning id`.execute(executor);
  const id = Number(rows[0]?.id);
  for (const [chunkIndex, chunk] of chunks.entries()) {
    // As a client sends them: an absent key is left out.
    const sent = chunk.map((keys) => ({
      ...(keys.internal_id === null ? {} : { internal_id: keys.internal_id }),
      ...(keys.invoice_reference === null ? {} : { invoice_reference: keys.invoice_reference }),
      remaining_amount: 1,
      currency: "EUR",
    }));
    const bodyText = JSON.stringify({ rows: sent });
    await insertChunkUnlessExists(executor, {
      snapshotId: id,
      companyId,
      chunkIndex,
      bodySha256: createHash("sha256").update(bodyText).digest(),
      rows: sent,
      bodyText,
      now: new Date(),
    });
  }
  return { companyId, id };
};

/** The domain's errors for these rows, in snapshot order. */
const domainErrors = (chunks: ReadonlyArray<ReadonlyArray<Keys>>): Array<Snapshot.RowError> => {
  const identified: Array<Snapshot.AcrossRowsInput> = [];
  const missing: Array<Snapshot.RowError> = [];
  chunks.flat().forEach((keys, rowIndex) => {
    const identity = Snapshot.effectiveIdentity({
      ...(keys.internal_id === null ? {} : { internal_id: keys.internal_id }),
      ...(keys.invoice_reference === null ? {} : { invoice_reference: keys.invoice_reference }),
    });
    if (identity === undefined) missing.push(Snapshot.acrossRowsError({ rule: "missing_identity", rowIndex }));
    else
      identified.push({
        rowIndex,
        identity,
        stream: Snapshot.streamOf(identity),
        invoiceReference: keys.invoice_reference,
      });
  });
  // Stable: a row without an identity has no other error, and the domain's order on one row is kept.
  return [...missing, ...Snapshot.checkAcrossRows(identified)].sort((a, b) => a.row_index - b.row_index);
};

const account = (internalId: string, invoiceReference: string | null = null): Keys => ({
  internal_id: internalId,
  invoice_reference: invoiceReference,
});
const invoice = (invoiceReference: string): Keys => ({ internal_id: null, invoice_reference: invoiceReference });
const neither: Keys = { internal_id: null, invoice_reference: null };

describe("findCrossRowErrors", () => {
  it("equals the domain's errors, sliced to the limit, with their full count", async () => {
    // "a" is both an internal_id and an invoice reference: the two kinds of identity must stay apart.
    const value = fc.option(fc.constantFrom("a", "b", "c", "é"), { nil: null, freq: 3 });
    const keys = fc.record({ internal_id: value, invoice_reference: value });
    const chunks = fc.array(fc.array(keys, { maxLength: 6 }), { minLength: 1, maxLength: 4 });
    await fc.assert(
      fc.asyncProperty(chunks, fc.constantFrom(0, 1, 2, 3, 100), async (snapshotChunks, limit) => {
        const expected = domainErrors(snapshotChunks);
        const found = await findCrossRowErrors(db, await storeSnapshot(snapshotChunks), limit);
        expect(found).toEqual({ errors: expected.slice(0, limit), count: expected.length });
      }),
      { numRuns: 150 },
    );
  });

  it("finds nothing in distinct identities of one stream", async () => {
    const snapshot = await storeSnapshot([[account("a", "inv-a"), account("b")], [account("c", "inv-c")]]);
    expect(await findCrossRowErrors(db, snapshot)).toEqual({ errors: [], count: 0 });
    const invoices = await storeSnapshot([[invoice("inv-a")], [invoice("inv-b"), invoice("a")]]);
    expect(await findCrossRowErrors(db, invoices)).toEqual({ errors: [], count: 0 });
  });

  it("names a duplicate identity on the later row, with snapshot-wide indexes across chunks", async () => {
    const snapshot = await storeSnapshot([
      [account("a"), account("b")],
      [account("c"), account("a")],
    ]);
    expect(await findCrossRowErrors(db, snapshot)).toEqual({
      errors: [{ row_index: 3, field: "internal_id", reason: 'duplicate internal_id "a" (first used by row 0)' }],
      count: 1,
    });
    const invoices = await storeSnapshot([[invoice("inv-1")], [], [invoice("inv-2"), invoice("inv-1")]]);
    expect(await findCrossRowErrors(db, invoices)).toEqual({
      errors: [
        {
          row_index: 2,
          field: "invoice_reference",
          reason: 'duplicate invoice_reference "inv-1" (first used by row 0)',
        },
      ],
      count: 1,
    });
  });

  it("names a duplicate invoice reference under internal_id identities, after the first row that carried it", async () => {
    const snapshot = await storeSnapshot([[account("a", "inv-1"), account("b"), account("c", "inv-1")]]);
    expect(await findCrossRowErrors(db, snapshot)).toEqual({
      errors: [
        {
          row_index: 2,
          field: "invoice_reference",
          reason: 'duplicate invoice_reference "inv-1" (first used by row 0)',
        },
      ],
      count: 1,
    });
  });

  it("names the rows of the other stream, with the first identified row", async () => {
    const accounts = await storeSnapshot([[neither, account("a")], [invoice("inv-1")]]);
    expect(await findCrossRowErrors(db, accounts)).toEqual({
      errors: [
        { row_index: 0, field: "internal_id", reason: "internal_id or invoice_reference is required" },
        {
          row_index: 2,
          field: "internal_id",
          reason: "is required: this snapshot uses account balances (internal_id) since row 1",
        },
      ],
      count: 2,
    });
    const invoices = await storeSnapshot([[invoice("inv-1"), account("a", "inv-1")]]);
    expect(await findCrossRowErrors(db, invoices)).toEqual({
      errors: [
        {
          row_index: 1,
          field: "internal_id",
          reason: "is not allowed: this snapshot uses invoice balances (invoice_reference) since row 0",
        },
        {
          row_index: 1,
          field: "invoice_reference",
          reason: 'duplicate invoice_reference "inv-1" (first used by row 0)',
        },
      ],
      count: 2,
    });
  });

  it("reports a duplicate invoice identity once, and an invoice first used by an account row", async () => {
    const snapshot = await storeSnapshot([
      [invoice("inv-1"), invoice("inv-1"), account("a", "inv-2"), invoice("inv-2")],
    ]);
    expect(await findCrossRowErrors(db, snapshot)).toEqual({
      errors: [
        {
          row_index: 1,
          field: "invoice_reference",
          reason: 'duplicate invoice_reference "inv-1" (first used by row 0)',
        },
        {
          row_index: 2,
          field: "internal_id",
          reason: "is not allowed: this snapshot uses invoice balances (invoice_reference) since row 0",
        },
        {
          row_index: 3,
          field: "invoice_reference",
          reason: 'duplicate invoice_reference "inv-2" (first used by row 2)',
        },
      ],
      count: 3,
    });
  });

  it("names every row without an identity, even when no row has one", async () => {
    const snapshot = await storeSnapshot([[neither], [neither]]);
    const required = "internal_id or invoice_reference is required";
    expect(await findCrossRowErrors(db, snapshot)).toEqual({
      errors: [
        { row_index: 0, field: "internal_id", reason: required },
        { row_index: 1, field: "internal_id", reason: required },
      ],
      count: 2,
    });
  });

  it("returns the first errors by row and the count of all", async () => {
    const snapshot = await storeSnapshot([
      [account("a", "inv-1"), account("a", "inv-1"), account("a", "inv-1")],
      [account("b"), account("b")],
    ]);
    expect(await findCrossRowErrors(db, snapshot, 3)).toEqual({
      errors: [
        { row_index: 1, field: "internal_id", reason: 'duplicate internal_id "a" (first used by row 0)' },
        {
          row_index: 1,
          field: "invoice_reference",
          reason: 'duplicate invoice_reference "inv-1" (first used by row 0)',
        },
        { row_index: 2, field: "internal_id", reason: 'duplicate internal_id "a" (first used by row 0)' },
      ],
      count: 5,
    });
  });

  it("reads only the named company's snapshot", async () => {
    const snapshot = await storeSnapshot([[account("a"), account("a")]]);
    expect(await findCrossRowErrors(db, { ...snapshot, companyId: companyId + 1 })).toEqual({ errors: [], count: 0 });
  });

  it("runs in the caller's transaction, over the chunks it stored", async () => {
    const found = await db
      .transaction()
      .execute(async (trx) => findCrossRowErrors(trx, await storeSnapshot([[account("a"), account("a")]], trx)));
    expect(found).toEqual({
      errors: [{ row_index: 1, field: "internal_id", reason: 'duplicate internal_id "a" (first used by row 0)' }],
      count: 1,
    });
  });

  it("throws on a purged chunk rather than check a part of the rows", async () => {
    const snapshot = await storeSnapshot([[account("a")], [account("a")]]);
    await sql`
      update snapshot_chunks set body = null, internal_ids = null, invoice_references = null, body_purged_at = now()
      where company_id = ${companyId} and snapshot_id = ${snapshot.id} and chunk_index = 1`.execute(db);
    await expect(findCrossRowErrors(db, snapshot)).rejects.toThrow(`snapshot ${snapshot.id} has a purged chunk`);
  });
});
