/** What a request handler may use: the database, ids, time, configuration and logging. */
import type { Db } from "@dc/db";
import type { Logger } from "pino";
import type { Clock } from "@dc/runtime";
import type { ApiConfig } from "./config.ts";
import type { DomainIds as Ids } from "@dc/db";
import type { SnapshotStatusWatch } from "./routes/snapshots/status-watch.ts";

export interface AppServices {
  readonly db: Db;
  /**
   * The hot fixed-shape reads outside a transaction (the debt lists and the
   * single-debt read): connections planning with PostgreSQL's generic plans,
   * so each PREPARED statement is planned once per connection
   * (docs/decisions/0017). Everything else uses `db`.
   */
  readonly reads: Db;
  readonly ids: Ids;
  readonly clock: Clock;
  readonly config: ApiConfig;
  readonly logger: Logger;
  /** Wakes snapshot status reads that wait for the snapshot to settle (`Prefer: wait`). */
  readonly snapshotStatus: SnapshotStatusWatch;
}
