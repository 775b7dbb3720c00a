/** The api's public id codec: the domain's id kinds, encrypted with the configured key. */
import { makeIdCodec, type IdCodec } from "@dc/db";

/**
 * Stable tag of each id kind. Never reorder or reuse a number: published ids
 * embed it.
 */
export const idKindTags = {
  company: 1,
  creditor: 2,
  debt: 3,
  followup: 4,
  timeline: 5,
  installment: 6,
  debtor: 7,
  user: 8,
  oauth_client: 9,
  payment_plan: 10,
  campaign: 11,
  snapshot: 12,
  webhook_endpoint: 13,
} as const;

export type IdKind = keyof typeof idKindTags;
export type Ids = IdCodec<IdKind>;

export const makeIds = (secret: Uint8Array): Ids => makeIdCodec<IdKind>(secret, idKindTags);
