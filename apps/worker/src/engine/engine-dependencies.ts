/** What the engine's runs use: the database, the clock, the log, the id codec, the channel providers and the settings. */
import type { Db, EventIds } from "@dc/db";
import type { Clock } from "@dc/runtime";
import type { Logger } from "pino";
import type { ChannelAdapters } from "../channels/channel-adapter.ts";
import type { EngineSettings } from "./engine-settings.ts";

export interface EngineDependencies {
  readonly db: Db;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly ids: EventIds;
  readonly adapters: ChannelAdapters;
  readonly engine: EngineSettings;
}
