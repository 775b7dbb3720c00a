/** The api's public id codec: the domain's id kinds and tags, encrypted with the configured key. */
import { makeIdCodec, type IdCodec } from "@dc/db";
import { Ids as IdKinds } from "@dc/domain";

export type IdKind = IdKinds.Kind;
export type Ids = IdCodec<IdKind>;

export const makeIds = (secret: Uint8Array): Ids => makeIdCodec<IdKind>(secret, IdKinds.tags);
