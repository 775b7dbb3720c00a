/** The api's public id codec: the domain's id kinds and tags, encrypted with the configured key (shared with the worker). */
import type { DomainIds } from "@dc/db";
import type { Ids as IdKinds } from "@dc/domain";

export { makeIds } from "@dc/db";

export type IdKind = IdKinds.Kind;
export type Ids = DomainIds;
