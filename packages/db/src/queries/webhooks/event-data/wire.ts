/**
 * Wire formats of webhook payloads, the same as the api's responses
 * (contract 2.1): resource timestamps as ISO 8601 with `+00:00`, snapshot
 * timestamps with `Z`, money in major units. The db package cannot import the
 * contract, so these few formatters are restated here; an api test compares
 * every payload with the contract's schemas and with the api's own reads.
 */
import type { IdCodec } from "../../../public-ids.ts";
import type { Ids } from "@dc/domain";

/** The id codec the payload builders encode ids with (the api's `services.ids`, or the worker's). */
export type EventIds = IdCodec<Ids.Kind>;

const pad = (value: number) => String(value).padStart(2, "0");

/** `2026-11-21T16:03:18+00:00`. */
export const isoOffset = (date: Date): string =>
  `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}T${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}+00:00`;

export const isoOffsetOrNull = (date: Date | null): string | null => (date === null ? null : isoOffset(date));
