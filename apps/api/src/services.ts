/** What a request handler may use: the database, ids, time, configuration and logging. */
import type { Database } from "@dc/db";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Clock } from "./clock.ts";
import type { ApiConfig } from "./config.ts";
import type { Ids } from "./ids.ts";

export interface AppServices {
  readonly db: Kysely<Database>;
  readonly ids: Ids;
  readonly clock: Clock;
  readonly config: ApiConfig;
  readonly logger: Logger;
}
