import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { isSchemaCurrent } from "../src/migrate.ts";
import { useTestDatabase } from "../src/testing/index.ts";

const { db } = await useTestDatabase();

describe("migrations", () => {
  it("leave the cloned database current, with graphile-worker's schema beside ours", async () => {
    expect(await isSchemaCurrent(db)).toBe(true);
    const schemas = await sql<{ nspname: string }>`select nspname from pg_namespace where nspname = 'graphile_worker'`.execute(db);
    expect(schemas.rows).toEqual([{ nspname: "graphile_worker" }]);
  });

  it("scope every tenant table's unique keys and indexes by company_id", async () => {
    // Every index on a table that has company_id must start with company_id, except
    // primary keys and keys over globally unique hashes / public client ids.
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
      "oauth_grants_client_idx",
      "timeline_timepoints_timeline_id_position_key",
      "timeline_actions_timepoint_id_position_key",
      "installments_payment_plan_id_position_key",
    ]);
    const offenders = rows.filter((row) => !globallyUnique.has(row.index) && !/\(company_id[,)]/.test(row.definition));
    expect(offenders).toEqual([]);
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
});
