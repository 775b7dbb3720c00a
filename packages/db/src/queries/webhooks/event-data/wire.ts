/**
 * Wire formats of webhook payloads, the same as the api's responses
 * (contract 2.1): resource timestamps as ISO 8601 with `+00:00`, snapshot
 * timestamps with `Z`, money in major units. The db package cannot import the
 * contract; the timestamp form comes from the domain, as the contract's does.
 * An api test compares every payload with the contract's schemas and with
 * the api's own reads.
 */
import { Dates, type Ids } from "@dc/domain";
import type { IdCodec } from "@dc/crypto";

/** The id codec the payload builders encode ids with (the api's `services.ids`, or the worker's). */
export type EventIds = IdCodec<Ids.Kind>;

/** `2026-11-21T16:03:18+00:00`. */
export const isoOffset = Dates.formatIsoOffset;

export const isoOffsetOrNull = (date: Date | null): string | null => (date === null ? null : isoOffset(date));
