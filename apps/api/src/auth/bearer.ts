/**
 * Bearer tokens of the external API: the header's syntax and the principal a
 * valid token stands for. The lookup itself (a token expired, revoked, of a
 * revoked client or of a revoked grant is refused) is part of admission,
 * http/fast-paths/admission.ts.
 */
import type { Scope } from "@dc/contract";
import { schemeCredentials } from "./authorization-header.ts";

/** Who is calling: the company of the token, its client and its scopes. */
export interface Principal {
  readonly companyId: number;
  readonly clientPk: number;
  readonly grantId: number;
  readonly scopes: ReadonlySet<Scope>;
}

/** The token of an `Authorization: Bearer` header, or undefined when absent or malformed. */
export const bearerToken = (header: string | undefined): string | undefined => schemeCredentials(header, "Bearer");
