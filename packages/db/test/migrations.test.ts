import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { Migrator } from "kysely/migration";
import { isSchemaCurrent, migrations } from "../src/migrate.ts";
import { useTestDatabase } from "../../testing/index.ts";

const { db } = await useTestDatabase();

/**
 * `with ... snapshot as (...)`: a new company with a campaign and one snapshot of it (`snapshot` returns its
 * id and company_id), in the columns every schema version since 0001 has; the statement goes on from there.
 */
const snapshotOfNewCompany = (snapshot: { name: string; deliveryMode: string; status: string; rows: number }) => sql`
  with company as (insert into companies (name) values (${snapshot.name}) returning id),
  creditor as (insert into creditors (company_id, name) select id, 'C' from company returning id, company_id),
  timeline as (insert into timelines (company_id, name) select id, 'T' from company returning id),
  campaign as (
    insert into campaigns (company_id, api_reference, name, creditor_id, timeline_id)
    select creditor.company_id, ${snapshot.name.toLowerCase()}, ${snapshot.name}, creditor.id, timeline.id
    from creditor, timeline returning id, company_id
  ),
  snapshot as (
    insert into snapshots (company_id, campaign_id, snapshot_reference, delivery_mode, status, expected_row_count)
    select company_id, id, ${snapshot.name.toLowerCase()}, ${snapshot.deliveryMode}, ${snapshot.status}, ${snapshot.rows}
    from campaign returning id, company_id
  )`;

describe("migrations", () => {
  it("leave the cloned database current, with graphile-worker's schema beside ours", async () => {
    expect(await isSchemaCurrent(db)).toBe(true);
    const schemas = await sql<{ nspname: string }>`select nspname from pg_namespace where nspname = 'graphile_worker'`.execute(db);
    expect(schemas.rows).toEqual([{ nspname: "graphile_worker" }]);
  });

  it("scope every tenant table's unique keys and indexes by company_id", async () => {
    // Every index on a table that has company_id must start with company_id, except
    // primary keys, keys over globally unique hashes / public client ids, the
    // indexes the hourly purge reads across tenants (expiries), and the indexes the
    // delete of a parent named by id alone follows (below).
    const { rows } = await sql<{ table: string; index: string; definition: string }>`
      select t.relname as table, i.relname as index, pg_get_indexdef(i.oid) as definition
      from pg_index x
      join pg_class i on i.oid = x.indexrelid
      join pg_class t on t.oid = x.indrelid
      join pg_namespace n on n.oid = t.relnamespace
      where n.nspname = 'public' and not x.indisprimary
        and exists (select 1 from pg_attribute a where a.attrelid = t.oid and a.attname = 'company_id')`.execute(db);
    const globallyUnique = new Set([
      "users_email_key",
      "oauth_clients_client_id_key",
      "oauth_authorization_codes_code_hash_key",
      "oauth_access_tokens_token_hash_key",
      "oauth_refresh_tokens_token_hash_key",
      "oauth_codes_expiry_idx",
      "oauth_access_tokens_expiry_idx",
      "oauth_refresh_tokens_expiry_idx",
      "oauth_access_tokens_grant_idx",
      "oauth_refresh_tokens_grant_idx",
      "oauth_login_sessions_token_hash_key",
      "oauth_login_sessions_expiry_idx",
      "snapshots_uploading_idx",
      "oauth_grants_client_idx",
      // Migration 0021 (packages/db/test/reference-indexes.test.ts): a user, an OAuth client and a grant are
      // the authentication directory's (docs/decisions/0023), referenced by id alone, so their delete looks up
      // the rows naming them across companies by design. Deleting a client clears the client of its payments
      // (0010's trigger) and snapshots (foreign key) and deletes its codes and tokens; deleting a grant its
      // codes; deleting a user its grants, codes and login sessions, and clears the clients it created.
      "payments_integration_client_idx",
      "snapshots_integration_client_idx",
      "oauth_codes_client_idx",
      "oauth_access_tokens_client_idx",
      "oauth_refresh_tokens_client_idx",
      "oauth_codes_grant_idx",
      "oauth_grants_user_idx",
      "oauth_codes_user_idx",
      "oauth_login_sessions_by_user_idx",
      "oauth_clients_created_by_idx",
      // Migration 0026 (docs/decisions/0600): the engine's live sweep finds due followups, the recovery
      // sweep stale sends and the timed-pause sweep ended pauses across companies by design, in time order.
      "followups_live_due_idx",
      "followups_engine_in_progress_idx",
      "enrollments_timed_pause_idx",
    ]);
    const offenders = rows.filter((row) => !globallyUnique.has(row.index) && !/\(company_id[,)]/.test(row.definition));
    expect(offenders).toEqual([]);
  });

  it("scope every composite primary key of a tenant table by company_id", async () => {
    // A key over a parent's id and a position (a chunk of a snapshot) is a tenant lookup key: it names the
    // company first, as the unique keys above do. Only the single-column identity keys are left as they are.
    const { rows } = await sql<{ table: string; definition: string }>`
      select t.relname as table, pg_get_indexdef(i.oid) as definition
      from pg_index x
      join pg_class i on i.oid = x.indexrelid
      join pg_class t on t.oid = x.indrelid
      join pg_namespace n on n.oid = t.relnamespace
      where n.nspname = 'public' and x.indisprimary
        and exists (select 1 from pg_attribute a where a.attrelid = t.oid and a.attname = 'company_id')`.execute(db);
    const offenders = rows.filter((row) => !/\((company_id[,)]|id\))/.test(row.definition));
    expect(offenders).toEqual([]);
  });

  it("undo 0018 back to keys by parent id and redo it, with stored chunks and timepoints kept", async () => {
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    const { rows } = await sql<{ id: number; company_id: number }>`
      ${snapshotOfNewCompany({ name: "Rekeyed", deliveryMode: "one_request", status: "completed", rows: 1 })}
      insert into snapshot_chunks (snapshot_id, chunk_index, company_id, body_sha256, row_count, body_purged_at)
      select id, 0, company_id, '\\x02', 1, now() from snapshot returning snapshot_id as id, company_id`.execute(db);
    const chunk = rows[0]!;
    expect((await migrator.migrateTo("0017-staged-snapshot-expiry")).error).toBeUndefined();
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    expect(await isSchemaCurrent(db)).toBe(true);
    const kept = await sql<{ n: number }>`
      select count(*)::int4 as n from snapshot_chunks where company_id = ${chunk.company_id} and snapshot_id = ${chunk.id}`.execute(db);
    expect(kept.rows).toEqual([{ n: 1 }]);
    // A chunk naming a snapshot of another company is refused by the key that now carries the company.
    const other = await db.insertInto("companies").values({ name: "Other" }).returning("id").executeTakeFirstOrThrow();
    await expect(
      sql`insert into snapshot_chunks (snapshot_id, chunk_index, company_id, body_sha256, row_count, body_purged_at)
        values (${chunk.id}, 1, ${other.id}, '\\x03', 1, now())`.execute(db),
    ).rejects.toMatchObject({ code: "23503" });
    await sql`delete from snapshots where id = ${chunk.id}`.execute(db);
    const cascaded = await sql<{ n: number }>`select count(*)::int4 as n from snapshot_chunks where snapshot_id = ${chunk.id}`.execute(db);
    expect(cascaded.rows).toEqual([{ n: 0 }]);
  });

  it("undo 0023's foreign keys back to the reference triggers exactly as 0010 to 0022 leave them, and redo them", async () => {
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    const catalog = async () => {
      const functions = await sql<{ definition: string }>`
        select pg_get_functiondef(p.oid) as definition from pg_proc p
        where p.pronamespace = 'public'::regnamespace and p.prokind = 'f' order by p.proname`.execute(db);
      const triggers = await sql<{ definition: string }>`
        select pg_get_triggerdef(t.oid) as definition from pg_trigger t
        join pg_class c on c.oid = t.tgrelid
        where c.relnamespace = 'public'::regnamespace and not t.tgisinternal order by t.tgname`.execute(db);
      const constraints = await sql<{ definition: string }>`
        select conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid) as definition from pg_constraint
        where connamespace = 'public'::regnamespace order by conrelid::regclass::text, conname`.execute(db);
      const indexes = await sql<{ definition: string }>`
        select indexdef as definition from pg_indexes where schemaname = 'public' order by indexname`.execute(db);
      return [functions, triggers, constraints, indexes].map(({ rows }) => rows.map(({ definition }) => definition));
    };
    const referenceTriggers = async () =>
      (
        await sql<{ name: string }>`
          select tgname as name from pg_trigger where tgname in ('debts_references_insert', 'companies_payments_cascade')
          order by 1`.execute(db)
      ).rows.map(({ name }) => name);
    expect(await referenceTriggers()).toEqual([]);
    // 0010, 0011 and 0013 as released, then 0020's edits of their functions.
    expect((await migrator.migrateTo("0019-idempotency-keys")).error).toBeUndefined();
    expect((await migrator.migrateTo("0022-drop-queue-wakeup-trigger")).error).toBeUndefined();
    const released = await catalog();
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    expect((await migrator.migrateTo("0022-drop-queue-wakeup-trigger")).error).toBeUndefined();
    expect(await referenceTriggers()).toEqual(["companies_payments_cascade", "debts_references_insert"]);
    expect(await catalog()).toEqual(released);
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    expect(await referenceTriggers()).toEqual([]);
    expect(await isSchemaCurrent(db)).toBe(true);
  });

  it("undo 0021's reference indexes and redo them", async () => {
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    const present = async () => {
      const { rows } = await sql<{ index: string }>`
        select relname as index from pg_class
        where relname in ('payments_integration_client_idx', 'snapshots_integration_client_idx', 'debts_timeline_idx')
        order by 1`.execute(db);
      return rows.map(({ index }) => index);
    };
    expect((await migrator.migrateTo("0020-tenant-keys")).error).toBeUndefined();
    expect(await present()).toEqual([]);
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    expect(await present()).toEqual([
      "debts_timeline_idx",
      "payments_integration_client_idx",
      "snapshots_integration_client_idx",
    ]);
  });

  it("undo 0028's list indexes back to their shorter columns and redo them", async () => {
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    const definitions = async () => {
      const { rows } = await sql<{ definition: string }>`
        select indexdef as definition from pg_indexes
        where indexname in ('debts_debtor_idx', 'followups_debt_idx', 'payments_debt_idx')
        order by indexname`.execute(db);
      return rows.map(({ definition }) => definition.replace(/^.* USING btree /, ""));
    };
    expect((await migrator.migrateTo("0025-undeclared-snapshot-row-count")).error).toBeUndefined();
    expect(await definitions()).toEqual([
      "(company_id, debtor_id) WHERE (debtor_id IS NOT NULL)",
      "(company_id, debt_id, created_at DESC)",
      "(company_id, debt_id, paid_at)",
    ]);
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    expect(await definitions()).toEqual([
      "(company_id, debtor_id, created_at DESC, id DESC) WHERE (debtor_id IS NOT NULL)",
      "(company_id, debt_id, created_at DESC, id DESC)",
      "(company_id, debt_id, paid_at, id)",
    ]);
  });

  it("store money exactly: bigint minor units round-trip through the pool's parsers", async () => {
    const company = await db.insertInto("companies").values({ name: "Acme" }).returning("id").executeTakeFirstOrThrow();
    const creditor = await db
      .insertInto("creditors")
      .values({ company_id: company.id, name: "Acme Creditor" })
      .returning("id")
      .executeTakeFirstOrThrow();
    const debt = await db
      .insertInto("debts")
      .values({
        company_id: company.id,
        creditor_id: creditor.id,
        amount_minor: 9_007_199_254_740_991,
        balance_minor: 123_456,
        currency: "EUR",
        amount_text: "90071992547409.91",
        birthdate: "1990-02-28",
      })
      .returning(["amount_minor", "balance_minor", "birthdate", "status"])
      .executeTakeFirstOrThrow();
    expect(debt).toEqual({
      amount_minor: 9_007_199_254_740_991,
      balance_minor: 123_456,
      birthdate: "1990-02-28",
      status: "status.default.pending",
    });
  });

  it("refuse to undo 0016 once a chunk's body was purged, changing nothing", async () => {
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    const { rows } = await sql<{ id: number }>`
      ${snapshotOfNewCompany({ name: "Purged", deliveryMode: "one_request", status: "completed", rows: 1 })}
      insert into snapshot_chunks (snapshot_id, chunk_index, company_id, body_sha256, row_count, body_purged_at)
      select id, 0, company_id, '\\x01', 1, now() from snapshot returning snapshot_id as id`.execute(db);
    const { error } = await migrator.migrateTo("0015-snapshot-status-notifications");
    expect(String(error)).toContain("cannot undo 0016-retention");
    expect(await isSchemaCurrent(db)).toBe(true);
    await sql`delete from snapshots where id = ${rows[0]?.id}`.execute(db);
  });

  it("carry stored snapshot chunks through 0009 (body and identity keys) and back, and restore 0010's foreign keys", async () => {
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    expect((await migrator.migrateTo("0008-webhooks")).error).toBeUndefined();
    const foreignKeys = await sql<{ conname: string }>`
      select conname from pg_constraint where conname in ('payments_company_id_fkey', 'installments_company_id_fkey')
      order by conname`.execute(db);
    expect(foreignKeys.rows.map((row) => row.conname)).toEqual(["installments_company_id_fkey", "payments_company_id_fkey"]);
    const { rows } = await sql<{ id: number }>`
      ${snapshotOfNewCompany({ name: "Migrated", deliveryMode: "staged", status: "uploading", rows: 3 })}
      insert into snapshot_chunks (snapshot_id, chunk_index, company_id, body_sha256, row_count, rows)
      select id, 0, company_id, '\\x00', 3,
        '[{"internal_id": "a"}, {"invoice_reference": "INV-2", "internal_id": null}, {"internal_id": "c", "invoice_reference": "INV-3"}]'
      from snapshot returning snapshot_id as id`.execute(db);
    const snapshotId = rows[0]?.id;

    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    const chunk = await db
      .selectFrom("snapshot_chunks")
      .select(["body", "internal_ids", "invoice_references"])
      .where("snapshot_id", "=", Number(snapshotId))
      .executeTakeFirstOrThrow();
    expect(JSON.parse(chunk.body ?? "")).toEqual({
      rows: [{ internal_id: "a" }, { invoice_reference: "INV-2", internal_id: null }, { internal_id: "c", invoice_reference: "INV-3" }],
    });
    expect(chunk.internal_ids).toEqual(["a", null, "c"]);
    expect(chunk.invoice_references).toEqual([null, "INV-2", "INV-3"]);
    expect(await isSchemaCurrent(db)).toBe(true);
  });

  it("give payments time-ordered ids (UUID version 7) from the column default", async () => {
    const { rows } = await sql<{ version: number; id: string }>`
      with company as (insert into companies (name) values ('Ledger ids') returning id),
      written as (
        insert into payments (company_id, debt_id, provider, kind, amount_minor, currency, status, paid_at)
        select company.id, n, 'snapshot', 'balance_delta', 100, 'EUR', 'succeeded', now()
        from company, generate_series(1, 3) as n returning id, debt_id
      )
      select uuid_extract_version(id) as version, id::text as id from written order by debt_id`.execute(db);
    expect(rows.map((row) => row.version)).toEqual([7, 7, 7]);
    const ids = rows.map((row) => row.id);
    expect([...ids].sort()).toEqual(ids);
  });
});
