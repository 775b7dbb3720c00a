/**
 * Kinds of external ids. External ids are opaque encrypted strings of
 * (kind, integer key); the encryption lives server side, this module only
 * names the kinds, their numeric tags and the shape of a public id.
 */
import { Schema } from "effect";

/** Every kind of resource that has an encrypted external id. */
export const kinds = [
  "debt",
  "creditor",
  "followup",
  "timeline",
  "company",
  "installment",
  "debtor",
  "user",
  "oauth_client",
  "payment_plan",
  "campaign",
  "snapshot",
  "webhook_endpoint",
  "debtor_request",
  "ai_detection",
  "sandbox_message",
] as const;

export type Kind = (typeof kinds)[number];

/** Schema of an id kind. */
export const Kind = Schema.Literal(...kinds);

/**
 * Numeric tag of each kind. The tags are persisted inside encrypted ids that
 * clients store: never renumber or reuse a tag, only append new kinds.
 */
export const tags: { readonly [K in Kind]: number } = {
  debt: 1,
  creditor: 2,
  followup: 3,
  timeline: 4,
  company: 5,
  installment: 6,
  debtor: 7,
  user: 8,
  oauth_client: 9,
  payment_plan: 10,
  campaign: 11,
  snapshot: 12,
  webhook_endpoint: 13,
  debtor_request: 14,
  ai_detection: 15,
  sandbox_message: 16,
};

const kindByTag: ReadonlyMap<number, Kind> = new Map(kinds.map((kind) => [tags[kind], kind]));

/** Numeric tag persisted for `kind`. */
export const tagOf = (kind: Kind): number => tags[kind];

/** Kind of a numeric tag, or `undefined` for a tag no kind uses. */
export const kindOfTag = (tag: number): Kind | undefined => kindByTag.get(tag);

/** An encrypted external id as it travels in paths and bodies: URL-safe base64, 16 to 64 characters. */
export const PublicId = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9_-]{16,64}$/, { message: () => "must be a valid id" }),
).annotations({ identifier: "PublicId" });
export type PublicId = typeof PublicId.Type;
