/**
 * Vitest global set-up for every package whose tests touch SQL: one real
 * PostgreSQL per test run (DATABASE_URL's server, or an ephemeral embedded
 * cluster on a free port), migrated once into a template database that each
 * test file clones (see test-database.ts). At the end, the tenant-statement
 * check: every statement of the code under test that the run recorded
 * (record-tenant-statements.ts) is planned against the template, and one
 * that reads a tenant table without naming its company fails the run
 * (tenant-statements.ts, docs/decisions/0023).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import type { TestProject } from "vitest/node";
import {
  createDatabase,
  DEFAULT_MIGRATION_LOCKS,
  migrateAll,
  serverOrEphemeralCluster,
  withDatabaseName,
} from "@dc/db";
import pg from "pg";
import "./provided-context.ts";
import { checkTenantStatements, describeVerdicts, recordedTenantStatements, unexcused } from "./tenant-statements.ts";


export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const handle = await serverOrEphemeralCluster("dc-test-pg");
  const template = `dc_template_${randomBytes(6).toString("hex")}`;
  const admin = createDatabase({ connectionString: handle.url, max: 1 });
  await sql`create database ${sql.id(template)}`.execute(admin);
  const templateUrl = withDatabaseName(handle.url, template);
  const templateDb = createDatabase({ connectionString: templateUrl, max: 1 });
  await migrateAll(templateDb, templateUrl, DEFAULT_MIGRATION_LOCKS);
  await templateDb.destroy();
  project.provide("testDatabase", { serverUrl: handle.url, template });
  const statements = mkdtempSync(join(tmpdir(), "dc-tenant-statements-"));
  project.provide("tenantStatements", statements);
  return async () => {
    try {
      await checkRecordedStatements(templateUrl, statements);
    } finally {
      rmSync(statements, { recursive: true, force: true });
      await sql`drop database if exists ${sql.id(template)} with (force)`.execute(admin);
      await admin.destroy();
      await handle.stop();
    }
  };
}

/** Throws, with a report, when a recorded statement reads a tenant table without naming its company. */
const checkRecordedStatements = async (templateUrl: string, directory: string): Promise<void> => {
  const client = new pg.Client({ connectionString: templateUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ version: number }>("select current_setting('server_version_num')::int as version");
    // EXPLAIN (GENERIC_PLAN) is PostgreSQL 16's.
    if ((rows[0]?.version ?? 0) < 160_000) {
      process.stderr.write("tenant-statement check skipped: it needs PostgreSQL 16 or later\n");
      return;
    }
    const recorded = recordedTenantStatements(directory);
    const verdicts = await checkTenantStatements(client, recorded);
    const failures = unexcused(verdicts);
    if (process.env["DC_TENANT_STATEMENTS_REPORT"] !== undefined) {
      process.stderr.write(
        `tenant-statement check: ${recorded.length} statements checked, ${verdicts.length - failures.length} documented exceptions:\n` +
          `${describeVerdicts(verdicts.filter((verdict) => !failures.includes(verdict)))}\n`,
      );
    }
    if (failures.length > 0) {
      throw new Error(
        `Statements of tenant data that do not name the company (DESIGN.md 6, docs/decisions/0023): ` +
          `add the company, or document the exception in packages/testing/tenant-statement-exceptions.ts\n` +
          describeVerdicts(failures),
      );
    }
  } finally {
    await client.end();
  }
};
