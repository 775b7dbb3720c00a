/** What the engine's runs use: the database, the clock, the log, the id codec, the link signer, the channel providers and the settings. */
import type { DebtorLinkSigner } from "@dc/crypto";
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
  /** Signs the debtor page links of the messages and of the debt.* payloads (docs/decisions/0670). */
  readonly links: DebtorLinkSigner;
  readonly adapters: ChannelAdapters;
  readonly engine: EngineSettings;
}
