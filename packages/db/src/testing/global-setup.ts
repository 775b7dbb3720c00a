/**
 * Vitest global set-up for every package whose tests touch SQL: one real
 * PostgreSQL per test run (DATABASE_URL's server, or an ephemeral embedded
 * cluster on a free port), migrated once into a template database that each
 * test file clones (see test-database.ts).
 */
import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import type { TestProject } from "vitest/node";
import { createDatabase, withDatabaseName } from "../connection.ts";
import { serverOrEphemeralCluster } from "../embedded-postgres.ts";
import { migrateAll } from "../migrate.ts";
import "./provided-context.ts";


export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const handle = await serverOrEphemeralCluster("dc-test-pg");
  const template = `dc_template_${randomBytes(6).toString("hex")}`;
  const admin = createDatabase({ connectionString: handle.url, max: 1 });
  await sql`create database ${sql.id(template)}`.execute(admin);
  const templateUrl = withDatabaseName(handle.url, template);
  const templateDb = createDatabase({ connectionString: templateUrl, max: 1 });
  await migrateAll(templateDb, templateUrl);
  await templateDb.destroy();
  project.provide("testDatabase", { serverUrl: handle.url, template });
  return async () => {
    await sql`drop database if exists ${sql.id(template)} with (force)`.execute(admin);
    await admin.destroy();
    await handle.stop();
  };
}
