/** `pnpm db:migrate`: applies every migration to DATABASE_URL or the embedded development database. */
import { createDatabase } from "../connection.ts";
import { resolveDevelopmentDatabase } from "../embedded-postgres.ts";
import { migrateAll } from "../migrate.ts";

const handle = await resolveDevelopmentDatabase();
const db = createDatabase({ connectionString: handle.url, max: 2 });
let code = 0;
try {
  await migrateAll(db, handle.url);
  process.stdout.write(`migrated ${handle.owned ? "the embedded database" : "the database"}\n`);
} catch (error) {
  process.stderr.write(`migration failed: ${error instanceof Error ? error.message : String(error)}\n`);
  code = 1;
} finally {
  await db.destroy();
  await handle.stop();
}
process.exit(code);
