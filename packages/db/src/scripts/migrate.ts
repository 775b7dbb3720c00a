/**
 * `pnpm db:migrate`: applies every migration to DATABASE_URL or the embedded
 * development database, each lock wait bounded by MIGRATION_LOCK_TIMEOUT_MS
 * and retried MIGRATION_LOCK_RETRIES times (docs/decisions/0028).
 */
import { Either } from "effect";
import { createDatabase } from "../connection.ts";
import { resolveDevelopmentDatabase } from "../embedded-postgres.ts";
import { migrateAll } from "../migrate.ts";
import { describeMigrationFailure } from "../migration-failures.ts";
import { describeMigrationRetry } from "../migration-locks.ts";
import { decodeVariables } from "@dc/runtime";
import { migrationLocksOf, MigrationVariables } from "../migration-settings.ts";

const settings = decodeVariables(MigrationVariables, process.env);
if (Either.isLeft(settings)) {
  process.stderr.write(`invalid configuration:\n  ${settings.left.join("\n  ")}\n`);
  process.exit(1);
}
const locks = migrationLocksOf(settings.right);
const handle = await resolveDevelopmentDatabase();
const db = createDatabase({ connectionString: handle.url, max: 2 });
let code = 0;
try {
  await migrateAll(db, handle.url, {
    ...locks,
    onRetry: (retry) => process.stderr.write(`${describeMigrationRetry(retry)}\n`),
  });
  process.stdout.write(`migrated ${handle.owned ? "the embedded database" : "the database"}\n`);
} catch (error) {
  process.stderr.write(`${describeMigrationFailure(error)}\n`);
  code = 1;
} finally {
  await db.destroy();
  await handle.stop();
}
process.exit(code);
