/**
 * The public id codec of the domain's id kinds (`Ids.kinds`, `Ids.tags`)
 * under a master secret (`ID_ENCRYPTION_KEY`): the api's `services.ids` and
 * the worker's event payloads are built with it, so an id in an event is the
 * id the API returns for the same row.
 */
import { Ids } from "@dc/domain";
import { type IdCodec, makeIdCodec } from "@dc/crypto";

export type DomainIds = IdCodec<Ids.Kind>;

/** The codec of every domain id kind, keyed by `secret` (at least 32 bytes). */
export const makeIds = (secret: Uint8Array): DomainIds => makeIdCodec<Ids.Kind>(secret, Ids.tags);
